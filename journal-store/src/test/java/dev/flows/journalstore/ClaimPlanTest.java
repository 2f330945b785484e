package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A claim reads ready steps from {@code steps_claimable} in (not_before, creation) order. With the
 * database clock as a scan parameter the read stops at the first step still backing off; with the
 * clock joined in as a row it would read every ready step and filter them, on every claim of every
 * worker, for as long as a mass of retries backs off. This reads the plan Postgres actually runs
 * (generic, as a prepared statement's becomes), so it fails on that without timing anything.
 */
class ClaimPlanTest {
  private static final int BACKING_OFF = 400;

  @Test
  void aClaimReadsNoStepThatIsStillBackingOff() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("claim_plan");
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      GenericPlans.insertRunningRuns(st, BACKING_OFF);
      st.execute(
          "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
              + " max_iterations, spec, not_before, updated_at, route)"
              + " SELECT 'run_' || i, 'a', 0, 'deterministic', 'ready', '{}', 3, '{}',"
              + " now() + interval '1 hour', now(), 'deterministic'"
              + " FROM generate_series(1, "
              + BACKING_OFF
              + ") i");
      String sql =
          Sql.text("claim_open")
              .replace(":kinds", "$1")
              .replace(":anyRoute", "$2")
              .replace(":routes", "$3")
              .replace(":capacity", "$4")
              .replace(":defaultLeaseMs", "$5")
              .replace(":runningStatus", "$6")
              .replace(":workerId", "$7")
              .replace(":now", "$8")
              .replace(":routePrefixes", "$9")
              .replace(":anyQueue", "$10")
              .replace(":queues", "$11");
      JsonNode plan =
          GenericPlans.explain(
              c,
              "PREPARE claim(text[], boolean, text[], integer, bigint, text, text, timestamptz,"
                  + " text[], boolean, text[]) AS "
                  + sql,
              // No test clock: the database clock, as in production.
              "claim('{deterministic}', true, '{}', 4, 30000, 'running', 'w', NULL, '{}', false,"
                  + " '{default}')");

      List<JsonNode> scans = new ArrayList<>();
      collect(plan, scans);
      assertThat(scans).as("claimable steps are read from steps_claimable").hasSize(1);
      JsonNode scan = scans.getFirst();
      assertThat(scan.path("Index Cond").asText()).contains("not_before");
      assertThat(scan.path("Actual Rows").asLong()).as("steps read").isZero();
    }
  }

  private static void collect(JsonNode node, List<JsonNode> scans) {
    if (node == null) {
      return;
    }
    if ("steps_claimable".equals(node.path("Index Name").asText())) {
      scans.add(node);
    }
    for (JsonNode child : node.path("Plans")) {
      collect(child, scans);
    }
  }
}
