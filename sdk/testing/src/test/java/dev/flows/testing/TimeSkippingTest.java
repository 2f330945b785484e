package dev.flows.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.embed.RunHandle;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

@FlowsTest
class TimeSkippingTest {
  @Test
  void aFlowThatSleepsThirtyDaysEndsInMillisecondsWhileTheTestWaits(FlowsTestEnvironment env)
      throws Exception {
    env.register(new Sleeper());
    env.mcpServer("payments").tool("charge", args -> Map.of("charged", args.path("n").asInt()));
    env.flows().inventory(Sleeper.class); // the servers connected: only the run is timed
    long t0 = System.nanoTime();
    RunHandle<String> run = env.start(Sleeper.class, "o-1");
    assertThat(env.result(run)).isEqualTo("done o-1");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    assertThat(env.elapsed()).isGreaterThanOrEqualTo(Duration.ofDays(30));
    assertThat(env.mcpServer("payments").tool("charge").calls()).hasSize(2);
    System.out.println(
        "sleeper: " + env.elapsed() + " virtual in " + Duration.ofNanos(System.nanoTime() - t0));
  }

  @Test
  void withoutAutoSkipOnlyAdvanceMovesTheClock() throws Exception {
    try (FlowsTestEnvironment env = FlowsTestEnvironment.builder().autoSkip(false).build()) {
      env.register(new Sleeper());
      env.mcpServer("payments").tool("charge", args -> Map.of("charged", args.path("n").asInt()));
      RunHandle<String> run = env.start(Sleeper.class, "o-2");
      org.awaitility.Awaitility.await()
          .until(() -> env.mcpServer("payments").tool("charge").calls().size() == 1);
      Thread.sleep(300);
      assertThat(env.elapsed()).isZero();
      assertThat(run.state()).isEqualTo(dev.flows.embed.RunState.RUNNING);
      env.advance(Duration.ofDays(30));
      assertThat(run.result(Duration.ofSeconds(10))).isEqualTo("done o-2");
      assertThat(env.mcpServer("payments").tool("charge").calls()).hasSize(2);
    }
  }
}
