package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.StepKind;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A failed run whose first listed failed step is not the one that failed it: every reader of "why
 * did this run fail" (the embedding API, runs show, the console) is tested on the same run.
 */
public final class TwoFailuresRun {
  private static final RunRef RUN = new RunRef("run_two_failures");
  private static final Instant T = Instant.parse("2026-12-01T00:00:00Z");

  /**
   * Steps {@code a} and {@code b} ran side by side; {@code b} failed first and failed the run, then
   * {@code a} failed too. The run failed because of {@code b}, though {@code a} is listed first.
   */
  public static RunSnapshot run() {
    return new RunSnapshot(
        RUN,
        "parallel",
        RunStatus.FAILED,
        Optional.empty(),
        "key",
        JsonNodeFactory.instance.objectNode(),
        "h",
        T,
        Optional.of(T),
        Optional.of(RunCompletionReason.STEP_FAILED),
        List.of(failedStep("a"), failedStep("b")),
        Optional.empty(),
        "default",
        Optional.empty());
  }

  public static List<JournalRecord> entries() {
    return List.of(
        new JournalRecord(1, T, failed("b", "b broke")),
        new JournalRecord(
            2,
            T,
            new JournalEntry.RunCompleted(RUN, RunCompletionReason.STEP_FAILED, Optional.of("b"))),
        new JournalRecord(3, T, failed("a", "a broke after the run failed")));
  }

  /**
   * A journal that answers this run and its entries, and refuses any other verb a test did not
   * expect.
   */
  public static Journal journal() {
    return (Journal)
        Proxy.newProxyInstance(
            Journal.class.getClassLoader(),
            new Class<?>[] {Journal.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "entries" -> entries();
                  case "run" -> Optional.of(run());
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  private static StepSnapshot failedStep(String id) {
    return new StepSnapshot(
        id,
        StepKind.AGENT,
        StepStatus.FAILED,
        1,
        T,
        Optional.of(CompletionReason.WORKER_ERROR),
        Optional.empty());
  }

  private static JournalEntry.StepCompleted failed(String step, String message) {
    ObjectNode tail = JsonNodeFactory.instance.objectNode().put("message", message);
    return new JournalEntry.StepCompleted(
        RUN,
        step,
        1,
        CompletionReason.WORKER_ERROR,
        Disposition.STEP_DONE,
        Optional.empty(),
        List.of(),
        Optional.of(tail),
        Optional.empty());
  }

  private TwoFailuresRun() {}
}
