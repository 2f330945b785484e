package dev.flows.testing;

import static dev.flows.testing.FlowsAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.embed.RunHandle;
import dev.flows.embed.RunInfo;
import dev.flows.embed.RunState;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A charge whose outcome the engine cannot know: performed by the server, then the worker died
 * before it journaled the answer (or the answer was lost on the wire). The charge is not
 * idempotent, so the call is parked for an operator and never sent again.
 */
@FlowsTest
class UnknownOutcomeTest {
  @Test
  void aChargeWhoseWorkerDiedAfterTheServerPerformedItIsParkedAndNotSentAgain(
      FlowsTestEnvironment env) throws Exception {
    env.register(new Charge());
    FakeTool charge = env.mcpServer("payments").tool("charge", args -> Map.of("id", "ch_1"));
    env.crashWorkerAt(CrashPoint.AFTER_CALL_BEFORE_CONFIRM);

    RunHandle<String> run = env.start(Charge.class, "o-7");
    RunInfo end = env.awaitEnd(run.runId());

    assertThat(end.state()).isEqualTo(RunState.PARKED);
    assertThat(env.workersStarted()).isEqualTo(2);
    assertThat(env.elapsed()).isGreaterThan(FlowsTestEnvironment.LEASE);
    assertThat(charge.calls()).hasSize(1);
    assertThat(env.run(run.runId()))
        .parked()
        .hasParkedStep("effect_outcome_unknown")
        .withUnknownOutcome("payments", "charge")
        .once()
        .withArgs(Map.of("order", "o-7", "amountCents", 4200))
        .and()
        .performed("payments", "charge")
        .never();
  }

  @Test
  void aChargeWhoseAnswerWasLostOnTheWireIsParkedAndNotSentAgain(FlowsTestEnvironment env)
      throws Exception {
    env.register(new Charge());
    FakeTool charge =
        env.mcpServer("payments").tool("charge", args -> Map.of("id", "ch_1")).losingOutcomes(1);

    RunHandle<String> run = env.start(Charge.class, "o-8");

    assertThat(env.awaitEnd(run.runId()).state()).isEqualTo(RunState.PARKED);
    assertThat(charge.calls()).hasSize(1);
    assertThat(env.run(run.runId())).parked().hasParkedStep("effect_outcome_unknown");
  }

  @Test
  void anIdempotentToolWhoseWorkerDiedIsSentAgainWithTheSameKey(FlowsTestEnvironment env)
      throws Exception {
    env.register(new Charge());
    FakeTool charge =
        env.mcpServer("payments").tool("charge", args -> Map.of("id", "ch_1")).idempotent();
    env.crashWorkerAt(CrashPoint.AFTER_CALL_BEFORE_CONFIRM);

    RunHandle<String> run = env.start(Charge.class, "o-9");

    assertThat(env.result(run)).isEqualTo("ch_1");
    assertThat(charge.calls()).hasSize(2);
    assertThat(charge.idempotencyKeys()).hasSize(2).containsOnly(charge.idempotencyKeys().get(0));
    assertThat(env.run(run.runId())).succeeded().performed("payments", "charge").once();
  }
}
