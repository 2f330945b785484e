package dev.flows.kernel.journal;

import dev.flows.kernel.RunAdmissionConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.lifecycle.RunStatus;

/**
 * A run an admission met already: the run under the request's run id, else the one under its
 * admission key. What the admission does then is one rule for every mode of {@link Journal#admit}
 * on every journal ({@link #answer}): only the same admission again is answered, anything else is
 * refused, writing nothing.
 */
public record AdmittedRun(RunRef runId, String admissionKey, String specHash, RunStatus status) {

  /**
   * What {@code r}, whose spec hashes to {@code specHash}, meets in this run: the same admission
   * again (its run id when it names one, its key and its spec's hash all this run's) is answered
   * with this run, not created, whatever its status. Refused otherwise: {@code run_terminal} when
   * the run id admitted this run under another key and it has ended (a tombstone is a run canceled
   * before it started), else {@code run_admission_conflict}: the run id under another key while its
   * run goes on, the key under another run id, or the key with another spec.
   */
  public StartedRun answer(StartRun r, String specHash) {
    if (r.runId().isPresent() && !r.runId().get().equals(runId)) {
      throw new RunAdmissionConflictException(
          r.admissionKey(), runId.value(), "the admission key admitted another run id");
    }
    if (!admissionKey.equals(r.admissionKey())) {
      if (status.terminal()) {
        throw new RunTerminalException(
            "run " + runId + " is " + status.wire() + " and its id cannot admit another run",
            runId.value());
      }
      throw new RunAdmissionConflictException(
          r.admissionKey(), runId.value(), "the run id was admitted under another admission key");
    }
    if (!this.specHash.equals(specHash)) {
      throw new RunAdmissionConflictException(r.admissionKey(), runId.value());
    }
    return new StartedRun(runId, false, status);
  }

  /**
   * What an admission in {@code mode} answers when it met this run: {@link #answer}, except that an
   * {@link Admit.Electing} admission is new or refused ({@link #notNew}).
   */
  public StartedRun answer(StartRun r, String specHash, Admit<?> mode) {
    StartedRun met = answer(r, specHash);
    return switch (mode) {
      case Admit.Electing e -> throw notNew(r, met.runId());
      case Admit.Queued q -> met;
      case Admit.ClaimedHere c -> met;
      case Admit.WithItsEnd w -> met;
      case Admit.Deferred d -> met;
    };
  }

  /**
   * {@link Admit.Electing}'s refusal of a run it met that {@link #answer} answers: an inline call's
   * admission is new or refused, and its caller awaits the run {@code existing} instead.
   */
  public static RunAdmissionConflictException notNew(StartRun r, RunRef existing) {
    return new RunAdmissionConflictException(
        r.admissionKey(), existing.value(), "the run id or admission key was already admitted");
  }
}
