package dev.flows.testing;

import static dev.flows.testing.FlowsAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.embed.RunHandle;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The approval example under the kit: a day of waiting for a person, in milliseconds. */
@FlowsTest
class ApprovalTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @BeforeEach
  void payments(FlowsTestEnvironment env) {
    env.register(new Approval());
    FakeMcpServer payments = env.mcpServer("payments");
    payments.tool("create_customer", args -> Map.of("id", "cus_1"));
    payments.tool("charge", args -> Map.of("id", "ch_1"));
  }

  @Test
  void anApprovalNobodyGivesTimesOutAfterTwentyFourVirtualHoursInUnderFiveSecondsOfWallTime(
      FlowsTestEnvironment env) throws Exception {
    env.flows().inventory(Approval.class); // the servers connected: only the run is timed
    long t0 = System.nanoTime();
    RunHandle<JsonNode> run = env.flows().start("approval", JSON.createObjectNode(), none());
    JsonNode out = env.result(run);
    Duration wall = Duration.ofNanos(System.nanoTime() - t0);

    assertThat(out.path("status").asText()).isEqualTo("cancelled");
    assertThat(out.path("reason").asText()).isEqualTo("no approval within PT24H");
    assertThat(env.elapsed()).isGreaterThanOrEqualTo(Duration.ofHours(24));
    assertThat(wall).isLessThan(Duration.ofSeconds(5));
    assertThat(env.run(run.runId())).succeeded().timedOutWaitingFor("approve");
    assertThat(env.run(run.runId())).called("payments", "charge").never();
    System.out.println("approval timed out after " + env.elapsed() + " virtual in " + wall);
  }

  @Test
  void anApprovalSentThreeVirtualHoursInChargesOnce(FlowsTestEnvironment env) throws Exception {
    RunHandle<JsonNode> run = env.flows().start("approval", JSON.createObjectNode(), none());
    env.advance(Duration.ofHours(3));
    run.signal("approve", Map.of("approved", true, "by", "ann"));
    JsonNode out = env.result(run);

    assertThat(out.path("status").asText()).isEqualTo("charged");
    assertThat(env.elapsed()).isLessThan(Duration.ofHours(24));
    assertThat(env.run(run.runId()))
        .succeeded()
        .receivedSignal("approve", Map.of("approved", true, "by", "ann"))
        .performed("payments", "charge")
        .once()
        .withArgs(Map.of("customer", "cus_1", "amountCents", 25000, "currency", "EUR"));
    assertThat(env.mcpServer("payments").tool("charge").calls()).hasSize(1);
  }

  @Test
  void aWeeksSignalTimeoutPassesInMilliseconds(FlowsTestEnvironment env) throws Exception {
    env.flows().inventory(Approval.class);
    long t0 = System.nanoTime();
    RunHandle<JsonNode> run =
        env.flows()
            .start("approval", JSON.createObjectNode().put("approvalTimeout", "P7D"), none());

    assertThat(env.result(run).path("reason").asText()).isEqualTo("no approval within PT168H");
    assertThat(env.elapsed()).isGreaterThanOrEqualTo(Duration.ofDays(7));
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
  }

  private static dev.flows.embed.StartOptions none() {
    return dev.flows.embed.StartOptions.none();
  }
}
