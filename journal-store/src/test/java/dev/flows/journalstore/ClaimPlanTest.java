package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A claim reads ready steps from {@code steps_claimable} in (not_before, creation) order. With the
 * database clock as a scan parameter the read stops at the first step still backing off; with the
 * clock joined in as a row it would read every ready step and filter them, on every claim of every
 * worker, for as long as a mass of retries backs off. This reads the plan Postgres actually runs
 * (generic: {@code flows.claim_open} plans its query once per connection), so it fails on that
 * without timing anything.
 */
class ClaimPlanTest {
  private static final int BACKING_OFF = 400;
  private static final int CLAIMS = 12;
  private static final int WAITING = 20_000;

  /** The function's parameters, in order, as the positional parameters of its query. */
  private static final List<String> PARAMETERS =
      List.of(
          "p_kinds",
          "p_any_route",
          "p_routes",
          "p_route_prefixes",
          "p_any_queue",
          "p_queues",
          "p_capacity",
          "p_default_lease_ms",
          "p_running_status",
          "p_worker_id",
          "p_now");

  @Test
  void aClaimReadsNoStepThatIsStillBackingOff() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("claim_plan");
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      GenericPlans.insertRunningRuns(st, BACKING_OFF);
      insertReadySteps(st, BACKING_OFF, "now() + interval '1 hour'");
      JsonNode plan =
          GenericPlans.explain(
              c,
              "PREPARE claim(text[], boolean, text[], text[], boolean, text[], integer, bigint,"
                  + " text, text, timestamptz) AS "
                  + claimQuery(st),
              // No test clock: the database clock, as in production.
              "claim('{deterministic}', true, '{}', '{}', false, '{default}', 4, 30000,"
                  + " 'running', 'w', NULL)");

      List<JsonNode> scans = new ArrayList<>();
      collect(plan, scans);
      assertThat(scans).as("claimable steps are read from steps_claimable").hasSize(1);
      JsonNode scan = scans.getFirst();
      assertThat(scan.path("Index Cond").asText()).contains("not_before");
      assertThat(scan.path("Actual Rows").asLong()).as("steps read").isZero();
    }
  }

  @Test
  void aConnectionPlansTheClaimOnceNotOnEveryCall() throws Exception {
    // As one statement the claim got a custom plan on every call, and planning it read more pages
    // the bigger the journal.
    TestDatabase.Fresh db = TestDatabase.fresh("claim_planned_once");
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      // Steps due now and, as on a journal with many timers set, many more due later: enough that
      // Postgres's cost comparison keeps custom plans for the claim as one statement.
      GenericPlans.insertRunningRuns(st, WAITING);
      insertReadySteps(st, WAITING, "now() + interval '1 day'");
      st.execute(
          "UPDATE flows.steps SET not_before = now() - interval '1 minute'"
              + " WHERE run_id IN (SELECT 'run_' || i FROM generate_series(1, "
              + CLAIMS
              + ") i)");
      c.commit();
      st.execute("ANALYZE flows.steps");
      st.execute("ANALYZE flows.runs");
      c.commit();
    }
    String url = db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + "prepareThreshold=1";
    PositionalSql claim = PositionalSql.of(Sql.text("claim_open"));
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps = c.prepareStatement(claim.sql())) {
      for (int i = 0; i < CLAIMS; i++) {
        bindOneStepClaim(claim, ps);
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).as("claim %d takes a step", i).isTrue();
          assertThat(rs.next()).isFalse();
        }
      }
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT custom_plans, generic_plans FROM pg_prepared_statements"
                      + " WHERE NOT from_sql AND statement NOT LIKE '%pg_prepared_statements%'")) {
        assertThat(rs.next()).as("the claim is a prepared statement of the connection").isTrue();
        // Postgres tries custom plans for a prepared statement's first five executions, then keeps
        // its generic plan unless custom ones estimate cheaper.
        assertThat(rs.getLong("custom_plans")).as("custom plans").isLessThanOrEqualTo(5);
        assertThat(rs.getLong("generic_plans")).as("generic plans").isEqualTo(CLAIMS - 5);
      }
    }
    // The query the function runs is planned once per connection too.
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT array_to_string(proconfig, ',') FROM pg_proc"
                    + " WHERE oid = 'flows.claim_open'::regproc")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("plan_cache_mode=force_generic_plan");
    }
  }

  private static void bindOneStepClaim(PositionalSql claim, PreparedStatement ps) throws Exception {
    claim.bind(ps, "kinds", new String[] {"deterministic"});
    claim.bind(ps, "anyRoute", true);
    claim.bind(ps, "routes", new String[0]);
    claim.bind(ps, "routePrefixes", new String[0]);
    claim.bind(ps, "anyQueue", true);
    claim.bind(ps, "queues", new String[0]);
    claim.bind(ps, "capacity", 1);
    claim.bind(ps, "defaultLeaseMs", 30_000L);
    claim.bind(ps, "runningStatus", "running");
    claim.bind(ps, "workerId", "w");
    claim.bind(ps, "now", null);
  }

  private static void insertReadySteps(Statement st, int n, String notBefore) throws Exception {
    st.execute(
        "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
            + " max_iterations, spec, not_before, updated_at, route)"
            + " SELECT 'run_' || i, 'a', 0, 'deterministic', 'ready', '{}', 3, '{}', "
            + notBefore
            + ", now(), 'deterministic' FROM generate_series(1, "
            + n
            + ") i");
  }

  /** The query {@code flows.claim_open} runs, its parameters as {@code $1 … $11}. */
  private static String claimQuery(Statement st) throws Exception {
    String body;
    try (ResultSet rs =
        st.executeQuery("SELECT prosrc FROM pg_proc WHERE oid = 'flows.claim_open'::regproc")) {
      rs.next();
      body = rs.getString(1);
    }
    String query =
        body.substring(
            body.indexOf("RETURN QUERY") + "RETURN QUERY".length(), body.lastIndexOf(';'));
    for (int i = 0; i < PARAMETERS.size(); i++) {
      query = query.replaceAll("\\b" + PARAMETERS.get(i) + "\\b", "\\$" + (i + 1));
    }
    return query;
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
