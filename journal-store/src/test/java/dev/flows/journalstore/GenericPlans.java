package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * For tests that read the plan Postgres actually runs for a journal statement: the generic plan a
 * prepared statement gets after a few executions, executed (EXPLAIN ANALYZE) and rolled back.
 */
final class GenericPlans {
  private static final ObjectMapper JSON = new ObjectMapper();

  private GenericPlans() {}

  /** Inserts {@code n} running runs {@code run_1 … run_n}, in the connection's transaction. */
  static void insertRunningRuns(Statement st, int n) throws SQLException {
    st.execute(
        "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash,"
            + " created_by, created_at)"
            + " SELECT 'run_' || i, 'plan', 'running', 'k' || i, '{}', 'h', 'flow:plan', now()"
            + " FROM generate_series(1, "
            + n
            + ") i");
  }

  /**
   * Commits, analyzes the run and step tables, prepares {@code prepare} under a forced generic
   * plan, runs {@code EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE <execute>}, rolls back what it wrote,
   * and answers the plan's root node.
   */
  static JsonNode explain(Connection c, String prepare, String execute) throws Exception {
    try (Statement st = c.createStatement()) {
      c.commit();
      st.execute("ANALYZE flows.steps");
      st.execute("ANALYZE flows.runs");
      c.commit();
      st.execute("SET plan_cache_mode = force_generic_plan");
      st.execute(prepare);
      String plan;
      try (ResultSet rs = st.executeQuery("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE " + execute)) {
        rs.next();
        plan = rs.getString(1);
      }
      c.rollback();
      return JSON.readTree(plan).get(0).get("Plan");
    }
  }
}
