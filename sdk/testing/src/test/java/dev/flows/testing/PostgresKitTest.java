package dev.flows.testing;

import static dev.flows.testing.FlowsAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.embed.RunHandle;
import dev.flows.embed.RunState;
import dev.flows.embed.StartOptions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The kit on the embedded Postgres: the journal judges time by the environment's clock there too
 * (the journal's test clock), so timers, signal timeouts and a dead worker's lease are skipped as
 * in memory.
 */
@FlowsTest(journal = JournalKind.POSTGRES)
class PostgresKitTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void anApprovalNobodyGivesTimesOutAfterTwentyFourVirtualHoursOnPostgres(FlowsTestEnvironment env)
      throws Exception {
    assertThat(env.journalKind()).isEqualTo(JournalKind.POSTGRES);
    env.register(new Approval());
    env.mcpServer("payments").tool("charge", args -> Map.of("id", "ch_1"));
    env.mcpServer("payments").tool("create_customer", args -> Map.of("id", "cus_1"));

    RunHandle<JsonNode> run =
        env.flows().start("approval", JSON.createObjectNode(), StartOptions.key("pg-1"));

    assertThat(env.result(run).path("status").asText()).isEqualTo("cancelled");
    assertThat(env.elapsed()).isGreaterThanOrEqualTo(Duration.ofHours(24));
    assertThat(env.run(run.runId())).succeeded().timedOutWaitingFor("approve");
    assertThat(env.flows().runs().named("approval").list(10)).hasSize(1);
  }

  @org.junit.jupiter.api.Nested
  class Nested {
    @Test
    void aNestedClassGetsTheJournalItsEnclosingClassAsksFor(FlowsTestEnvironment env) {
      assertThat(env.journalKind()).isEqualTo(JournalKind.POSTGRES);
    }
  }

  @Test
  void aChargeWhoseWorkerDiedIsParkedAndNotSentAgainOnPostgres(FlowsTestEnvironment env)
      throws Exception {
    env.register(new Charge());
    FakeTool charge = env.mcpServer("payments").tool("charge", args -> Map.of("id", "ch_1"));
    env.crashWorkerAt(CrashPoint.AFTER_CALL_BEFORE_CONFIRM);

    RunHandle<String> run = env.start(Charge.class, "o-pg");

    assertThat(env.awaitEnd(run.runId()).state()).isEqualTo(RunState.PARKED);
    assertThat(charge.calls()).hasSize(1);
    assertThat(env.run(run.runId())).parked().hasParkedStep("effect_outcome_unknown");
  }
}
