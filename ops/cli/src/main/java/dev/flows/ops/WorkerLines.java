package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.worker.AttemptObserver;
import java.time.Duration;

/**
 * What {@code flows worker} says it does: a line when it takes an attempt and one when the attempt
 * ends (run, step label, outcome, duration); with {@code --quiet} only the attempts that ended in
 * an error. A JSON line each with {@code --json}.
 */
final class WorkerLines implements AttemptObserver {
  private final Session session;
  private final boolean quiet;

  WorkerLines(Session session, boolean quiet) {
    this.session = session;
    this.quiet = quiet;
  }

  @Override
  public void claimed(ClaimedAttempt attempt) {
    if (quiet) {
      return;
    }
    ObjectNode ev = fields("attempt.claimed", attempt);
    session.event(
        ev,
        "run "
            + attempt.lease().runId().value()
            + " "
            + ev.path("label").asText()
            + " claimed (attempt "
            + attempt.lease().attempt()
            + ")");
  }

  @Override
  public void ended(ClaimedAttempt attempt, Ending ending, Duration took) {
    boolean error = error(ending);
    if (quiet && !error) {
      return;
    }
    ObjectNode ev = fields("attempt.ended", attempt);
    String outcome = outcome(ending);
    ev.put("outcome", outcome).put("error", error).put("tookMs", took.toMillis());
    session.event(
        ev,
        "run "
            + attempt.lease().runId().value()
            + " "
            + ev.path("label").asText()
            + " "
            + outcome
            + " (attempt "
            + attempt.lease().attempt()
            + ", "
            + ConsolePages.took(took)
            + ")");
  }

  private static ObjectNode fields(String type, ClaimedAttempt attempt) {
    ObjectNode ev = Session.JSON.createObjectNode();
    ev.put("type", type)
        .put("runId", attempt.lease().runId().value())
        .put("stepId", attempt.lease().stepId())
        .put("label", StepLabel.ofStep(RunSpecJson.writeStep(attempt.step())))
        .put("attempt", attempt.lease().attempt());
    return ev;
  }

  /** How the attempt ended, in words: the journal's reason and what became of the step. */
  static String outcome(Ending ending) {
    return switch (ending) {
      case Ending.Completed c when c.ack().reason() == CompletionReason.SUSPENDED ->
          "suspended (it waits; its step is taken again when the wait ends)";
      case Ending.Completed c ->
          switch (c.ack().disposition()) {
            case STEP_DONE ->
                c.ack().reason() == CompletionReason.SUCCESS
                    ? "succeeded"
                    : "failed: " + c.ack().reason().wire();
            case RETRY -> "will retry after " + c.ack().reason().wire();
            case PARK -> "parked: " + c.ack().reason().wire();
          };
      case Ending.LeaseLost l -> "lost its lease: " + l.reason();
      case Ending.Failed f -> "ended without a completion: " + Database.oneLine(f.message());
    };
  }

  /** An ending an operator should see even with {@code --quiet}. */
  static boolean error(Ending ending) {
    return switch (ending) {
      case Ending.Completed c ->
          c.ack().reason() != CompletionReason.SUCCESS
              && c.ack().reason() != CompletionReason.SUSPENDED;
      case Ending.LeaseLost l -> true;
      case Ending.Failed f -> true;
    };
  }
}
