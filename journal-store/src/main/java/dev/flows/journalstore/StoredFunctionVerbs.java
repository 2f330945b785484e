package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The attempt ends that are one function call in autocommit (R__journal_functions.sql): an
 * attempt's success ({@code flows.succeed_attempt}, {@code flows.succeed_after_memos}), and a
 * durable call's end ({@code flows.confirm_and_succeed}). Each function answers a refusal as an
 * outcome, which is thrown here as the multi-statement verbs throw it. Admissions in one statement
 * are {@link Admission}'s.
 */
final class StoredFunctionVerbs {
  private static final PositionalSql SUCCEED_ATTEMPT =
      PositionalSql.of(Sql.text("succeed_attempt"));
  private static final PositionalSql CONFIRM_AND_SUCCEED =
      PositionalSql.of(Sql.text("confirm_and_succeed"));
  private static final PositionalSql SUCCEED_AFTER_MEMOS =
      PositionalSql.of(Sql.text("succeed_after_memos"));

  private final JournalDb db;

  StoredFunctionVerbs(JournalDb db) {
    this.db = db;
  }

  /**
   * What a success function answered: an outcome, the statuses written, how many waiting steps it
   * readied, and the surface an open election names.
   */
  private record SuccessEnd(
      String outcome,
      Optional<RunStatus> runStatus,
      Optional<StepStatus> stepStatus,
      Optional<String> unconfirmed,
      int unblocked) {
    static SuccessEnd read(ResultSet rs, Optional<String> unconfirmed) throws SQLException {
      return new SuccessEnd(
          rs.getString("outcome"),
          JournalRows.runStatus(rs, "run_status"),
          Optional.ofNullable(rs.getString("step_status")).map(StepStatus::fromWire),
          unconfirmed,
          rs.getInt("unblocked"));
    }
  }

  CompletionAck succeed(LeaseToken lease, StepOutcome.Succeeded ok) {
    JsonNode output = ok.output() == null ? NullNode.getInstance() : ok.output();
    SuccessEnd row =
        db.autocommitRow(
            SUCCEED_ATTEMPT,
            (sql, ps) -> bindSuccess(sql, ps, lease, output),
            rs -> SuccessEnd.read(rs, Optional.ofNullable(rs.getString("unconfirmed"))));
    return switch (row.outcome()) {
      case "ok" -> succeeded(row);
      case "effect_unconfirmed" ->
          throw Refusals.unconfirmed(lease, row.unconfirmed().orElseThrow());
      default -> throw Refusals.fromOutcome(row.outcome(), lease, row.runStatus());
    };
  }

  /**
   * As {@link #succeed}, journaling the attempt's last memos first in the same statement ({@code
   * flows.succeed_after_memos}); {@code memos} binds them. Empty, having written nothing, when an
   * election of one of them holds already.
   */
  Optional<CompletionAck> succeedAfterMemos(
      LeaseToken lease, StepOutcome.Succeeded ok, JournalDb.Binder memos) {
    JsonNode output = ok.output() == null ? NullNode.getInstance() : ok.output();
    SuccessEnd row =
        db.autocommitRow(
            SUCCEED_AFTER_MEMOS,
            (sql, ps) -> {
              memos.bind(sql, ps);
              bindSuccess(sql, ps, lease, output);
            },
            rs -> SuccessEnd.read(rs, Optional.ofNullable(rs.getString("unconfirmed"))));
    return switch (row.outcome()) {
      case "ok" -> Optional.of(succeeded(row));
      case "memos_held" -> Optional.empty();
      case "effect_unconfirmed" ->
          throw Refusals.unconfirmed(lease, row.unconfirmed().orElseThrow());
      default -> throw Refusals.fromOutcome(row.outcome(), lease, row.runStatus());
    };
  }

  CompletionAck confirmAndSucceed(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome.Succeeded ok) {
    JsonNode stepOutput = ok.output() == null ? NullNode.getInstance() : ok.output();
    String key = Keys.idempotencyKey(lease.runId(), lease.stepId());
    SuccessEnd row =
        db.autocommitRow(
            CONFIRM_AND_SUCCEED,
            (sql, ps) -> {
              sql.bind(ps, "surfacePath", surfacePath);
              sql.bind(ps, "confirmOutput", output.map(EntryCodec::text).orElse(null));
              sql.bind(
                  ps,
                  "confirmed",
                  EntryCodec.encode(
                          new JournalEntry.EffectConfirmed(
                              lease.runId(),
                              lease.stepId(),
                              lease.attempt(),
                              surfacePath,
                              key,
                              output))
                      .payload());
              bindSuccess(sql, ps, lease, stepOutput);
            },
            rs -> SuccessEnd.read(rs, Optional.empty()));
    return switch (row.outcome()) {
      case "ok" -> succeeded(row);
      case "effect_not_recorded" -> throw Refusals.notRecorded(lease, surfacePath);
      case "effect_unconfirmed" -> throw Refusals.anotherUnconfirmed(lease);
      default -> throw Refusals.fromOutcome(row.outcome(), lease, row.runStatus());
    };
  }

  /**
   * The attempt, the step's output, its status from the kernel's table, and the payloads of a
   * success's {@code step.completed} (its {@code effects} are filled in by the database) and of
   * {@code run.completed}, and the journal's clock.
   */
  private void bindSuccess(
      PositionalSql sql, PreparedStatement ps, LeaseToken lease, JsonNode stepOutput)
      throws SQLException {
    StepStatus succeeded = StepTransition.COMPLETED_SUCCESS.to();
    sql.bind(ps, "now", db.clock());
    sql.bind(ps, "runId", lease.runId().value());
    sql.bind(ps, "stepId", lease.stepId());
    sql.bind(ps, "attempt", lease.attempt());
    sql.bind(ps, "leaseId", lease.leaseId());
    sql.bind(ps, "succeededStatus", succeeded.wire());
    bindEnd(sql, ps, lease, stepOutput);
  }

  /** The step's output and the entries of the success (step.completed without its effects). */
  private static void bindEnd(
      PositionalSql sql, PreparedStatement ps, LeaseToken lease, JsonNode stepOutput)
      throws SQLException {
    SuccessEncoded end = SuccessEncoded.of(lease, stepOutput);
    sql.bind(ps, "stepOutput", end.stepOutput());
    sql.bind(ps, "completed", end.completed());
    sql.bind(ps, "runCompleted", end.runCompleted());
  }

  /**
   * An attempt's success that ends its run, encoded: the step's output, step.completed (without its
   * effects, which the functions list from the memos) and run.completed.
   */
  record SuccessEncoded(String stepOutput, String completed, String runCompleted) {
    static SuccessEncoded of(LeaseToken lease, JsonNode stepOutput) {
      return of(lease, stepOutput, List.of());
    }

    /** As above, {@code step.completed} listing {@code effects} (the attempt's memos, in order). */
    static SuccessEncoded of(
        LeaseToken lease, JsonNode stepOutput, List<JournalEntry.EffectRef> effects) {
      return new SuccessEncoded(
          EntryCodec.text(stepOutput),
          EntryCodec.encode(
                  new JournalEntry.StepCompleted(
                      lease.runId(),
                      lease.stepId(),
                      lease.attempt(),
                      CompletionReason.SUCCESS,
                      Disposition.STEP_DONE,
                      Optional.of(stepOutput),
                      effects,
                      Optional.empty(),
                      Optional.empty()))
              .payload(),
          EntryCodec.encode(
                  new JournalEntry.RunCompleted(
                      lease.runId(), RunCompletionReason.SUCCESS, Optional.empty()))
              .payload());
    }
  }

  /**
   * A success written: the transitions the function made recorded from what it answered. It took
   * the step only from running (else it answered lease_conflict), readied waiting steps only, and
   * ended only a running run.
   */
  private CompletionAck succeeded(SuccessEnd row) {
    db.transitions()
        .stepsMade(
            StepTransition.COMPLETED_SUCCESS,
            StepStatus.RUNNING,
            row.stepStatus().orElseThrow(),
            1);
    if (row.unblocked() > 0) {
      db.transitions()
          .stepsMade(
              StepTransition.DEPENDENCIES_MET,
              StepStatus.WAITING,
              StepStatus.READY,
              row.unblocked());
    }
    RunStatus runStatus = row.runStatus().orElseThrow();
    if (runStatus == RunStatus.SUCCEEDED) {
      db.transitions()
          .runMade(RunTransition.ALL_STEPS_SUCCEEDED, Optional.of(RunStatus.RUNNING), runStatus);
    }
    return new CompletionAck(
        CompletionReason.SUCCESS, Disposition.STEP_DONE, Optional.empty(), runStatus);
  }
}
