package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import java.time.Duration;
import java.util.Set;

/** What a worker reports when an attempt ends. The journal decides the disposition. */
public sealed interface StepOutcome {
  /**
   * The step did its work; {@code output} becomes the step's journaled result. {@code memos}: the
   * attempt's confirmed effects not journaled yet (a body's last {@code f.step} memos), journaled
   * by the completion before the step's end, in the same transaction, as {@link
   * Journal#recordConfirmedEffects} would journal them: a memo refused refuses the completion too,
   * and a memo whose election holds already writes nothing.
   */
  record Succeeded(JsonNode output, java.util.List<MemoEffect> memos) implements StepOutcome {
    public Succeeded {
      memos = java.util.List.copyOf(memos);
    }

    /** A success with nothing left to journal but its output. */
    public Succeeded(JsonNode output) {
      this(output, java.util.List.of());
    }
  }

  /**
   * The attempt failed. When {@code retryable} and iterations remain, the step is retried after a
   * durable backoff; otherwise it fails (reason {@code retries_exhausted} if it was retryable).
   */
  record Failed(CompletionReason reason, JsonNode trajectoryTail, boolean retryable)
      implements StepOutcome {}

  /** The step cannot go on without an operator (e.g. {@code effect_outcome_unknown}). */
  record Parked(CompletionReason reason, ErrorCode code, JsonNode trajectoryTail)
      implements StepOutcome {}

  /**
   * The body waits and gives its attempt back instead of holding a lease, a thread and memory for
   * the whole wait: the step becomes ready again (and its body is replayed from the journal) {@code
   * recheckAfter} from now at the latest, and at once when one of the runs in {@code awaiting}
   * leaves {@code running} or a signal named in {@code signals} is pending for the run (one that is
   * already so when the attempt ends readies the step at once). With neither, it is a durable
   * timer: the step is claimable again at its due time and not before. A suspension does not use up
   * one of the step's iterations. Refused {@code invalid_input} when a run in {@code awaiting} is
   * not a child of the attempt's run.
   */
  record Suspended(Set<RunRef> awaiting, Set<String> signals, Duration recheckAfter)
      implements StepOutcome {
    public Suspended {
      awaiting = Set.copyOf(awaiting);
      signals = Set.copyOf(signals);
      if (recheckAfter.isNegative() || recheckAfter.isZero()) {
        throw new IllegalArgumentException("recheckAfter must be positive, got " + recheckAfter);
      }
    }

    /** Waits on one child run. */
    public Suspended(RunRef awaiting, Duration recheckAfter) {
      this(Set.of(awaiting), Set.of(), recheckAfter);
    }

    /** A durable timer: the step is claimable again {@code due} from now. */
    public static Suspended timer(Duration due) {
      return new Suspended(Set.of(), Set.of(), due);
    }

    /** Waits for a signal named {@code name}, or {@code timeout} from now at the latest. */
    public static Suspended signal(String name, Duration timeout) {
      return new Suspended(Set.of(), Set.of(name), timeout);
    }

    /** The awaited runs in a stable order (their ids'), the order their rows are locked in. */
    public java.util.List<RunRef> awaitingInOrder() {
      return awaiting.stream().sorted(java.util.Comparator.comparing(RunRef::value)).toList();
    }
  }
}
