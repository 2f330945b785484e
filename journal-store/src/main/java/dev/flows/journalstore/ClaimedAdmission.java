package dev.flows.journalstore;

import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.ClaimedStart;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.Routes;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepSpec;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * A run admitted already claimed, as {@code flows.start_claimed} and {@code flows.start_succeeded}
 * take it: the run, its only step running under attempt 1 ({@code attempt}, whose deadline the
 * function sets from the journal's clock), and their entries, each encoded once.
 */
record ClaimedAdmission(
    StartRun request,
    ClaimedAttempt attempt,
    WorkerId worker,
    String spec,
    String specHash,
    String spawned,
    String started) {

  /** Under {@code request}'s run id, else a new one. */
  static ClaimedAdmission of(StartRun request, WorkerId worker, Duration lease) {
    RunRef runId = request.runId().orElseGet(RunRef::random);
    ClaimedAttempt attempt = ClaimedStart.firstAttempt(request, runId, lease, Instant.EPOCH);
    StepSpec step = attempt.step();
    var specJson = RunSpecJson.write(request.spec());
    // RunSpecJson.hash(spec) of the tree already written, instead of writing the spec twice.
    String hash = Keys.sha256Hex(RunSpecJson.canonicalText(specJson));
    // The function sets the real deadline (from the journal's clock) over this placeholder.
    JournalEntry started =
        new JournalEntry.StepAttemptStarted(
            runId,
            step.id(),
            1,
            step.kind(),
            attempt.idempotencyKey(),
            attempt.lease().leaseId(),
            Instant.EPOCH,
            worker);
    JournalEntry spawned =
        new JournalEntry.RunSpawned(
            runId,
            specJson,
            hash,
            request.parentRunId(),
            request.admissionKey(),
            request.createdBy(),
            request.rerunOf());
    return new ClaimedAdmission(
        request,
        attempt,
        worker,
        EntryCodec.text(specJson),
        hash,
        EntryCodec.encode(spawned).payload(),
        EntryCodec.encode(started).payload());
  }

  RunRef runId() {
    return attempt.lease().runId();
  }

  /**
   * Binds the run, the step and their first entries, as both functions take them; start_claimed
   * also takes the statuses it writes, the worker and its election ({@link #bindClaim}).
   */
  void bind(PositionalSql sql, PreparedStatement ps, JournalDb db) throws SQLException {
    StepSpec step = attempt.step();
    sql.bind(ps, "runId", runId().value());
    sql.bind(ps, "name", request.spec().name());
    sql.bind(ps, "parentRunId", request.parentRunId().map(RunRef::value).orElse(null));
    sql.bind(ps, "admissionKey", request.admissionKey());
    sql.bind(ps, "spec", spec);
    sql.bind(ps, "specHash", specHash);
    sql.bind(ps, "createdBy", request.createdBy());
    sql.bind(ps, "rerunOf", request.rerunOf().map(RunRef::value).orElse(null));
    sql.bind(ps, "queue", request.queue());
    sql.bind(ps, "stepId", step.id());
    sql.bind(ps, "kind", step.kind().wire());
    sql.bind(ps, "route", Routes.of(step));
    sql.bind(ps, "maxIterations", step.maxIterations());
    sql.bind(ps, "stepSpec", EntryCodec.text(RunSpecJson.writeStep(step)));
    sql.bind(ps, "leaseId", attempt.lease().leaseId());
    sql.bind(ps, "leaseMs", attempt.leaseMs());
    sql.bind(ps, "idempotencyKey", attempt.idempotencyKey());
    sql.bind(ps, "now", db.clock());
    sql.bind(ps, "spawned", spawned);
    sql.bind(ps, "started", started);
  }

  /** What only start_claimed takes: the statuses it writes and the worker holding the lease. */
  void bindClaim(PositionalSql sql, PreparedStatement ps) throws SQLException {
    sql.bind(ps, "runStatus", RunTransition.SPAWNED.to().wire());
    sql.bind(ps, "runningStatus", StepTransition.CLAIMED.to().wire());
    sql.bind(ps, "workerId", worker.value());
  }
}
