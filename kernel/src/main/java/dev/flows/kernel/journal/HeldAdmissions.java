package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The admissions a journal holds back ({@link Admit.Deferred}): one rule for both journals. A
 * journal makes a held admission in its admission verb ({@link #hold}) and consults this registry
 * before every other verb that names a run ({@link #admitBefore}) and in its completion ({@link
 * #complete}); the admissions it makes go to the journal around the registry ({@link Unheld}).
 * Nobody outside this process can name a held run before its admission: its id is new and unseen.
 */
public final class HeldAdmissions {
  private final Map<RunRef, HeldAdmission> held = new ConcurrentHashMap<>();
  private final Unheld journal;

  /**
   * The journal's own verbs, without consulting this registry (a held admission calls them while it
   * admits its run).
   */
  public interface Unheld {
    /** Admits {@code request} as the journal's admission verb would. */
    <R> R admit(StartRun request, Admit<R> mode);

    /** The run as the journal holds it. */
    Optional<RunSnapshot> run(RunRef runId);
  }

  public HeldAdmissions(Unheld journal) {
    this.journal = journal;
  }

  Unheld unheld() {
    return journal;
  }

  /**
   * Holds back the admission of {@code request}, writing nothing; refused {@code invalid_input}
   * when it names no run id, or its spec has not exactly one step ready at creation.
   */
  public HeldAdmission hold(StartRun request, Admit.Deferred mode) {
    RunRef runId =
        request
            .runId()
            .orElseThrow(
                () ->
                    new FlowsException(
                        ErrorCode.INVALID_INPUT,
                        "a run held back names its new run id; this request names none",
                        request.admissionKey(),
                        "give the request a new run id (StartRun.withRunId)"));
    ClaimedAttempt attempt =
        ClaimedStart.firstAttempt(request, runId, mode.lease(), mode.deadline());
    HeldAdmission h = new HeldAdmission(request, attempt, mode, this);
    held.put(runId, h);
    return h;
  }

  /** Admits the run claimed first if its admission is held back. */
  public void admitBefore(RunRef run) {
    if (!held.isEmpty()) {
      HeldAdmission h = held.get(run);
      if (h != null) {
        h.admitClaimed();
      }
    }
  }

  /** As {@link #admitBefore(RunRef)} for the run {@code lease} names. */
  public void admitBefore(LeaseToken lease) {
    admitBefore(lease.runId());
  }

  /** As {@link #admitBefore(RunRef)} for the run of each lease. */
  public void admitBefore(Collection<LeaseToken> leases) {
    if (!held.isEmpty()) {
      leases.forEach(this::admitBefore);
    }
  }

  /** As {@link #admitBefore(RunRef)} for the parent {@code request} names and its run id. */
  public void admitBefore(StartRun request) {
    if (!held.isEmpty()) {
      request.parentRunId().ifPresent(this::admitBefore);
      request.runId().ifPresent(this::admitBefore);
    }
  }

  /**
   * The completion of a held attempt: a success with at most {@link
   * HeldAdmission#MOST_MEMOS_WITH_ADMISSION} memos admits the run with it and answers its
   * acknowledgement; otherwise empty, the run admitted claimed first if it was held, and the
   * journal completes the attempt as any other.
   */
  public Optional<CompletionAck> complete(LeaseToken lease, StepOutcome outcome) {
    if (held.isEmpty()) {
      return Optional.empty();
    }
    HeldAdmission h = held.get(lease.runId());
    if (h != null
        && h.attempt().lease().equals(lease)
        && outcome instanceof StepOutcome.Succeeded ok
        && ok.memos().size() <= HeldAdmission.MOST_MEMOS_WITH_ADMISSION) {
      Optional<CompletionAck> ack = h.admitWithEnd(ok);
      if (ack.isPresent()) {
        return ack;
      }
    }
    admitBefore(lease);
    return Optional.empty();
  }

  void release(HeldAdmission h) {
    held.remove(h.runId(), h);
  }
}
