package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The example queries of SURFACE.md's "SQL views" answer what they promise. */
class ViewsTest {
  private static PostgresFixture pg;
  private static RunRef runId;

  @BeforeAll
  static void aRunWithARetriedAttemptAndAnOpenElection() {
    pg = PostgresFixture.create("views");
    runId =
        pg.journal()
            .admit(
                StartRun.of(
                    "k", Specs.run("viewed", Specs.agent("a", 2, "/mcp/x"), Specs.llm("b"))),
                Admit.queued())
            .runId();
    ClaimRequest req =
        new ClaimRequest(new WorkerId("w-views"), Set.of(StepKind.AGENT), 1, Duration.ofMinutes(1));
    ClaimedAttempt first = pg.journal().claim(req).getFirst();
    pg.journal().recordEffect(first.lease(), "/mcp/x");
    pg.journal()
        .complete(
            first.lease(),
            new StepOutcome.Failed(
                CompletionReason.WORKER_ERROR, JsonNodeFactory.instance.nullNode(), true));
  }

  @AfterAll
  static void close() {
    pg.close();
  }

  @Test
  void runsOverviewListsTheRunningRunWithItsStepCounts() throws SQLException {
    List<List<String>> rows =
        rows(
            "SELECT run_id, name, status, steps_running, steps_parked, created_at"
                + " FROM flows.runs_overview WHERE status IN ('running', 'parked')"
                + " ORDER BY created_at");
    assertThat(rows)
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.subList(0, 5))
                    .containsExactly(runId.value(), "viewed", "running", "0", "0"));
    assertThat(rows("SELECT steps_total, steps_ready, attempts_total FROM flows.runs_overview"))
        .containsExactly(List.of("2", "2", "1"));
  }

  @Test
  void stepAttemptsShowsTheEndedAttemptWithItsRetry() throws SQLException {
    List<List<String>> rows =
        rows(
            "SELECT step_id, attempt, worker_id, started_at, ended_at, reason, disposition,"
                + " next_attempt_at FROM flows.step_attempts WHERE run_id = '"
                + runId.value()
                + "' ORDER BY started_at");
    assertThat(rows)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.subList(0, 3)).containsExactly("a", "1", "w-views");
              assertThat(r.subList(5, 7)).containsExactly("worker_error", "retry");
              assertThat(r.get(7)).isNotNull();
            });
  }

  @Test
  void effectsFlagsTheElectionWhoseAttemptEndedUnconfirmed() throws SQLException {
    assertThat(
            rows(
                "SELECT run_id, step_id, surface_path, attempt FROM flows.effects"
                    + " WHERE outcome_unknown"))
        .containsExactly(List.of(runId.value(), "a", "/mcp/x", "1"));
  }

  private static List<List<String>> rows(String sql) throws SQLException {
    return rows(pg, sql);
  }

  /** The rows {@code sql} answers on {@code db}, each column as text (NULL as null). */
  static List<List<String>> rows(PostgresFixture db, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.db().jdbcUrl());
        var st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      List<List<String>> out = new ArrayList<>();
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          row.add(rs.getString(i));
        }
        out.add(row);
      }
      return out;
    }
  }
}
