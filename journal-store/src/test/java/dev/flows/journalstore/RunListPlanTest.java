package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The run list ({@code flows runs list}, the console's first page: the newest root runs of {@code
 * flows.runs_overview} with their step counts) reads the steps of the runs it shows, not of every
 * run in the journal: on a journal of millions of runs the page would otherwise cost an aggregate
 * over all of them. This reads the plan Postgres runs, so it fails on that without timing anything.
 */
class RunListPlanTest {
  private static final int RUNS = 2_000;
  private static final int PAGE = 50;

  /** The statement of {@code ListRuns.rows} (ops/cli) with no filter. */
  private static final String LIST =
      "SELECT o.run_id, o.name, o.status::text, o.parent_run_id, o.created_at,"
          + " o.completed_at, o.completion_reason::text, o.steps_total,"
          + " o.steps_succeeded, o.steps_running, o.steps_parked, o.steps_failed,"
          + " o.attempts_total, o.rerun_of, o.queue, o.waiting_reason,"
          + " (SELECT count(*) FROM flows.runs_overview c WHERE c.parent_run_id = o.run_id)"
          + " FROM flows.runs_overview o WHERE NOT o.tombstone AND o.parent_run_id IS NULL"
          + " ORDER BY o.created_at DESC, o.run_id LIMIT $1";

  @Test
  void theNewestRunsPageReadsOnlyTheStepsOfTheRunsItShows() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("run_list_plan");
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      GenericPlans.insertRunningRuns(st, RUNS);
      st.execute(
          "UPDATE flows.runs SET created_at = now() - CAST(substr(run_id, 5) AS integer)"
              + " * interval '1 second'");
      st.execute(
          "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
              + " max_iterations, spec, not_before, updated_at, route)"
              + " SELECT 'run_' || i, 'a', 0, 'deterministic', 'ready', '{}', 3, '{}',"
              + " now(), now(), 'deterministic' FROM generate_series(1, "
              + RUNS
              + ") i");
      JsonNode plan =
          GenericPlans.explain(c, "PREPARE list(integer) AS " + LIST, "list(" + PAGE + ")");

      // Each shown run's step, once for its counts and once for its wait note.
      assertThat(stepsRead(plan))
          .as("step rows read for a page of " + PAGE)
          .isLessThanOrEqualTo(2 * PAGE);
    }
  }

  /** Rows every scan of flows.steps in the plan returned, over all its loops. */
  private static long stepsRead(JsonNode node) {
    long n = 0;
    if ("steps".equals(node.path("Relation Name").asText())) {
      n += node.path("Actual Rows").asLong() * Math.max(1, node.path("Actual Loops").asLong());
    }
    for (JsonNode child : node.path("Plans")) {
      n += stepsRead(child);
    }
    return n;
  }
}
