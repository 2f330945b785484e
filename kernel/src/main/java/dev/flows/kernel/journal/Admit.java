package dev.flows.kernel.journal;

import java.time.Duration;
import java.util.Optional;

/**
 * How {@link Journal#admit} admits a run, with what each way needs; {@code R} is what it answers.
 * Whatever the mode, a request that meets a run under its run id or admission key is answered or
 * refused by one rule ({@link AdmittedRun#answer}), writing nothing.
 */
public sealed interface Admit<R>
    permits Admit.Queued, Admit.ClaimedHere, Admit.Electing, Admit.WithItsEnd, Admit.Deferred {

  /** For any worker to claim: the run's ready steps wake the claimers. */
  static Queued queued() {
    return Queued.MODE;
  }

  /** Already claimed by {@code worker}, who runs the attempt at once. */
  static ClaimedHere claimedHere(WorkerId worker, Duration lease) {
    return new ClaimedHere(worker, lease);
  }

  /** Already claimed by {@code worker} and ended with {@code outcome}. */
  static WithItsEnd withItsEnd(WorkerId worker, Duration lease, StepOutcome.Succeeded outcome) {
    return new WithItsEnd(worker, lease, outcome);
  }

  /**
   * Held back: {@code worker} runs attempt 1 at once, and the run is admitted later ({@link
   * HeldAdmission}); {@code deadline} is the attempt's lease deadline.
   */
  static Deferred deferred(WorkerId worker, Duration lease, java.time.Instant deadline) {
    return new Deferred(worker, lease, deadline);
  }

  /**
   * What the mode answers: {@code admitted} is the answer a journal made for this mode (the mode's
   * record names its type), so the cast holds.
   */
  @SuppressWarnings("unchecked")
  default R answer(Object admitted) {
    return (R) admitted;
  }

  /**
   * Queued: answers the run, {@code created} when this call admitted it. A run created wakes
   * waiting claimers.
   */
  record Queued() implements Admit<StartedRun> {
    private static final Queued MODE = new Queued();
  }

  /**
   * Claimed here: when this call creates the run, attempt 1 of its one step is opened leased to
   * {@code worker} (the lease is the step's {@code leaseMs}, else {@code lease}) in the same
   * transaction, and no claimer is woken. Answers the run as {@link Queued} does and the attempt
   * when it created the run. Refused {@code invalid_input}, writing nothing, unless the spec has
   * exactly one step ready at creation ({@link ClaimedStart#onlyStep}).
   */
  record ClaimedHere(WorkerId worker, Duration lease) implements Admit<ClaimedStart> {
    /** As this mode, the attempt also elected for the effect at {@code surfacePath}. */
    public Electing electing(String surfacePath) {
      return new Electing(worker, lease, surfacePath);
    }
  }

  /**
   * Claimed here, the attempt elected for the effect at {@code surfacePath} at once: for a caller
   * that performs the effect itself (an inline {@code f.mcp} call). Its admission is new or
   * refused: a run met that {@link Queued} would answer is refused {@code run_admission_conflict}
   * ({@link AdmittedRun#notNew}), the caller awaits that run instead. Refused {@code invalid_input}
   * unless the spec has exactly one step, without dependencies, and {@code effect_not_declared}
   * unless that step is an agent step declaring {@code surfacePath} ({@link
   * ClaimedEffect#inlineStep}).
   */
  record Electing(WorkerId worker, Duration lease, String surfacePath)
      implements Admit<ClaimedEffect> {}

  /**
   * With its end: claimed here, and the attempt completed with {@code outcome} (its memos journaled
   * before the step's end), as {@link ClaimedHere} then {@link Journal#complete} would, in one
   * transaction where the journal can. For a process that ran the body of a run it had not admitted
   * yet and saw it succeed before anyone could know the run. Empty, having written nothing, where
   * {@link Queued} answers the run met not created.
   */
  record WithItsEnd(WorkerId worker, Duration lease, StepOutcome.Succeeded outcome)
      implements Admit<Optional<CompletionAck>> {
    /** The claimed admission this one makes before its end. */
    public ClaimedHere claimed() {
      return new ClaimedHere(worker, lease);
    }
  }

  /**
   * Deferred: writes nothing now. Answers the admission held back ({@link HeldAdmission}) and the
   * attempt 1 of the run's one step that {@code worker} runs at once, leased as {@link ClaimedHere}
   * leases it, until {@code deadline}. The run is admitted at the first of: the attempt's success
   * (with its end, as {@link WithItsEnd}), any other verb of this journal naming the run (claimed
   * first, as {@link ClaimedHere}), the starter's wait running out ({@link HeldAdmission#await}),
   * the attempt ending otherwise ({@link Queued}). For a request naming a new run id that nobody
   * outside this process can know yet; refused {@code invalid_input}, writing nothing, when the
   * request names none or its spec has not exactly one step ready at creation.
   */
  record Deferred(WorkerId worker, Duration lease, java.time.Instant deadline)
      implements Admit<HeldAdmission> {
    /** The claimed admission made when the run is needed before its end. */
    public ClaimedHere claimed() {
      return new ClaimedHere(worker, lease);
    }

    /** The admission made with the attempt's success. */
    public WithItsEnd withItsEnd(StepOutcome.Succeeded outcome) {
      return new WithItsEnd(worker, lease, outcome);
    }
  }
}
