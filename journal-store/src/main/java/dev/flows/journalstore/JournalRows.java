package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.RunCompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.mapper.RowMapper;

/** The journal's rows as read from its statements, and the one way each column is read. */
final class JournalRows {
  private JournalRows() {}

  record RunRow(
      RunRef runId,
      String name,
      RunStatus status,
      Optional<RunRef> parentRunId,
      String admissionKey,
      JsonNode spec,
      String specHash,
      boolean tombstone,
      Instant createdAt,
      Optional<Instant> completedAt,
      Optional<RunCompletionReason> completionReason,
      Optional<RunRef> rerunOf) {
    RunRow withStatus(RunStatus s) {
      return new RunRow(
          runId,
          name,
          s,
          parentRunId,
          admissionKey,
          spec,
          specHash,
          tombstone,
          createdAt,
          completedAt,
          completionReason,
          rerunOf);
    }
  }

  /** A step row; {@code leaseId} and {@code leaseDeadline} are null unless it is running. */
  record StepRow(
      RunRef runId,
      String stepId,
      StepKind kind,
      StepStatus status,
      List<String> dependsOn,
      StepSpec spec,
      int attempts,
      int suspensions,
      String leaseId,
      Instant leaseDeadline,
      Instant notBefore,
      Optional<CompletionReason> lastReason,
      Optional<JsonNode> output) {
    String place() {
      return runId.value() + "/" + stepId;
    }
  }

  /**
   * The fence's answer for a lease: its outcome ({@code ok} or a refusal), the run's status when
   * the run exists, and the step when the attempt is live.
   */
  record LiveRow(String outcome, Optional<RunStatus> runStatus, Optional<StepRow> step) {}

  record ElectionRow(
      String surfacePath,
      int attempt,
      String idempotencyKey,
      boolean confirmed,
      Optional<JsonNode> output) {}

  static final RowMapper<RunRow> RUN =
      (rs, ctx) ->
          new RunRow(
              new RunRef(rs.getString("run_id")),
              rs.getString("name"),
              RunStatus.fromWire(rs.getString("status")),
              Optional.ofNullable(rs.getString("parent_run_id")).map(RunRef::new),
              rs.getString("admission_key"),
              EntryCodec.parse(rs.getString("spec")),
              rs.getString("spec_hash"),
              rs.getBoolean("tombstone"),
              instant(rs, "created_at"),
              Optional.ofNullable(instant(rs, "completed_at")),
              Optional.ofNullable(rs.getString("completion_reason"))
                  .map(RunCompletionReason::fromWire),
              Optional.ofNullable(rs.getString("rerun_of")).map(RunRef::new));

  static final RowMapper<StepRow> STEP =
      (rs, ctx) ->
          new StepRow(
              new RunRef(rs.getString("run_id")),
              rs.getString("step_id"),
              StepKind.fromWire(rs.getString("kind"))
                  .orElseThrow(() -> new IllegalStateException("stored step kind unknown")),
              StepStatus.fromWire(rs.getString("status")),
              strings(rs, "depends_on"),
              StoredSpecs.readStep(EntryCodec.parse(rs.getString("spec"))),
              rs.getInt("attempts"),
              rs.getInt("suspensions"),
              rs.getString("lease_id"),
              instant(rs, "lease_deadline"),
              instant(rs, "not_before"),
              Optional.ofNullable(rs.getString("last_reason")).map(CompletionReason::fromWire),
              json(rs, "output"));

  static final RowMapper<LiveRow> LIVE =
      (rs, ctx) ->
          new LiveRow(
              rs.getString("outcome"),
              runStatus(rs, "run_status"),
              rs.getString("step_id") == null ? Optional.empty() : Optional.of(STEP.map(rs, ctx)));

  static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  static Optional<JsonNode> json(ResultSet rs, String column) throws SQLException {
    String text = rs.getString(column);
    return text == null ? Optional.empty() : Optional.of(EntryCodec.parse(text));
  }

  static Optional<RunStatus> runStatus(ResultSet rs, String column) throws SQLException {
    return Optional.ofNullable(rs.getString(column)).map(RunStatus::fromWire);
  }

  private static List<String> strings(ResultSet rs, String column) throws SQLException {
    Array a = rs.getArray(column);
    return a == null ? List.of() : Arrays.asList((String[]) a.getArray());
  }
}
