package dev.flows.worker;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** Test fixtures: steps and claimed attempts without a journal. */
public final class Attempts {
  private Attempts() {}

  public static StepSpec step(String id, StepBody body, OptionalLong timeoutMs) {
    return new StepSpec(
        id,
        List.of(),
        NullNode.getInstance(),
        StepSpec.DEFAULT_MAX_ITERATIONS,
        BackoffPolicy.defaults(),
        OptionalLong.empty(),
        timeoutMs,
        body);
  }

  public static StepBody.Deterministic shell(String script) {
    return new StepBody.Deterministic(List.of(script), true);
  }

  public static StepBody.Deterministic argv(String... argv) {
    return new StepBody.Deterministic(List.of(argv), false);
  }

  public static ClaimedAttempt claimed(StepSpec step) {
    RunRef run = RunRef.random();
    return new ClaimedAttempt(
        new LeaseToken(run, step.id(), 1, Keys.leaseId(run, step.id(), 1)),
        Instant.now().plusSeconds(30),
        30_000,
        step,
        Keys.idempotencyKey(run, step.id()),
        Optional.empty());
  }
}
