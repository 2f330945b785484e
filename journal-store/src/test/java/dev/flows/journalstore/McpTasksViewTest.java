package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.TaskNote;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** SURFACE.md's example query of {@code flows.mcp_tasks} answers what it promises. */
class McpTasksViewTest {
  private static final String SURFACE = "/mcp/jobs/slow";
  private static PostgresFixture pg;
  private static RunRef working;
  private static RunRef canceled;

  @BeforeAll
  static void twoCallsMadeAsTasks() {
    pg = PostgresFixture.create("mcp_tasks_view");
    working = taskRun("working", "t-working", "40%");
    canceled = taskRun("canceled", "t-canceled", "10%");
    pg.journal().cancelRun(canceled, "operator");
    pg.journal().noteTaskCancel(canceled, "a", "t-canceled", "its run ended canceled", "worker:w");
  }

  /** A run whose call's server created task {@code taskId}, noted twice (then a change). */
  private static RunRef taskRun(String key, String taskId, String message) {
    RunRef id =
        pg.journal()
            .admit(
                StartRun.of(key, Specs.run("tasks", Specs.agent("a", 1, SURFACE))), Admit.queued())
            .runId();
    ClaimedAttempt a =
        pg.journal()
            .claim(
                new ClaimRequest(
                    new WorkerId("w"), Set.of(StepKind.AGENT), 1, Duration.ofMinutes(1)))
            .getFirst();
    pg.journal().recordEffect(a.lease(), SURFACE);
    pg.journal().recordTask(a.lease(), SURFACE, note(taskId, "0%"));
    pg.journal().recordTask(a.lease(), SURFACE, note(taskId, message));
    pg.journal().complete(a.lease(), StepOutcome.Suspended.timer(Duration.ofMinutes(1)));
    return id;
  }

  private static TaskNote note(String taskId, String message) {
    return new TaskNote(
        taskId,
        "working",
        Optional.of(message),
        Optional.of(1000L),
        Optional.empty(),
        "2026-07-28");
  }

  @AfterAll
  static void close() {
    pg.close();
  }

  @Test
  void mcpTasksShowsEachCallsTaskWithItsLatestStatusAndWhetherACancelWasSent() throws SQLException {
    assertThat(
            rows(
                "SELECT run_id, server, tool, task_id, status, status_message, updated_at"
                    + " FROM flows.mcp_tasks WHERE status IN ('working', 'input_required')"
                    + " ORDER BY created_at"))
        .extracting(r -> r.subList(0, 6))
        .containsExactly(
            List.of(working.value(), "jobs", "slow", "t-working", "working", "40%"),
            List.of(canceled.value(), "jobs", "slow", "t-canceled", "working", "10%"));
    assertThat(
            rows(
                "SELECT step_id, poll_interval_ms, protocol_version, created_attempt, run_status,"
                    + " cancel_reason, cancel_sent_at IS NOT NULL FROM flows.mcp_tasks"
                    + " ORDER BY created_at"))
        .containsExactly(
            java.util.Arrays.asList("a", "1000", "2026-07-28", "1", "running", null, "f"),
            List.of("a", "1000", "2026-07-28", "1", "canceled", "its run ended canceled", "t"));
  }

  private static List<List<String>> rows(String sql) throws SQLException {
    return ViewsTest.rows(pg, sql);
  }
}
