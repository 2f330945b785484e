package com.example.orders;

import static dev.flows.testing.FlowsAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.embed.RunHandle;
import dev.flows.testing.FlowsTest;
import dev.flows.testing.FlowsTestEnvironment;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

@FlowsTest
class ShipOrderTest {
  @Test
  void anOrderIsChargedOnceAndShippedAfterAVirtualDay(FlowsTestEnvironment env) throws Exception {
    env.register(new ShipOrder()); // charges, f.sleep(Duration.ofDays(1)), then ships
    env.mcpServer("payments").tool("charge", args -> Map.of("id", "ch_1"));

    RunHandle<String> run = env.start(ShipOrder.class, "order-42");

    assertThat(env.result(run)).isEqualTo("order-42 shipped, paid by ch_1");
    assertThat(env.elapsed()).isGreaterThanOrEqualTo(Duration.ofDays(1)); // virtual time
    assertThat(env.run(run.runId()))
        .succeeded()
        .performed("payments", "charge")
        .once()
        .withArgs(Map.of("order", "order-42"));
  }
}
