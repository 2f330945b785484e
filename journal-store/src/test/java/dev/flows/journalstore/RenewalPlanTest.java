package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The lease renewal is a prepared statement, so Postgres may plan it once for any array (a generic
 * plan estimates an unnested array at a hundred rows). Planned that way it once joined CTE to CTE
 * in nested loops, quadratic in the leases: 20,000 took 18 s and every lease ran out. This reads
 * the plan Postgres actually runs, so it fails on a quadratic join without timing anything.
 */
class RenewalPlanTest {
  private static final int LEASES = 400;

  @Test
  void aGenericPlanRenewsManyLeasesWithoutComparingEveryLeaseWithEveryOther() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("renewal_plan");
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      // One transaction: the schema lets only a run's own transaction create its step running.
      GenericPlans.insertRunningRuns(st, LEASES);
      st.execute(
          "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
              + " max_iterations, spec, attempts, lease_id, lease_deadline, lease_ms, worker_id,"
              + " not_before, updated_at, route)"
              + " SELECT 'run_' || i, 'call', 0, 'agent', 'running', '{}', 5, '{}', 1, 'lease_' || i,"
              + " now() + interval '1 hour', 30000, 'w', now(), now(), 'r'"
              + " FROM generate_series(1, "
              + LEASES
              + ") i");
      String sql =
          Sql.text("leases_renew")
              .replace(":runIds", "$1")
              .replace(":stepIds", "$2")
              .replace(":attempts", "$3")
              .replace(":leaseIds", "$4")
              .replace(":now", "$5");
      List<Integer> ids = IntStream.rangeClosed(1, LEASES).boxed().toList();
      JsonNode plan =
          GenericPlans.explain(
              c,
              "PREPARE renew(text[], text[], int[], text[], timestamptz) AS " + sql,
              "renew("
                  + array(ids.stream().map(i -> "run_" + i).toList())
                  + ", "
                  + array(ids.stream().map(i -> "call").toList())
                  + ", '{"
                  + ids.stream().map(i -> "1").collect(Collectors.joining(","))
                  + "}', "
                  + array(ids.stream().map(i -> "lease_" + i).toList())
                  // No test clock: the database clock, as in production.
                  + ", NULL)");

      List<Long> removed = new ArrayList<>();
      collect(plan, removed);
      // Renewed: every lease once. A nested loop between two CTEs removes LEASES x LEASES rows.
      assertThat(removed.stream().mapToLong(Long::longValue).sum()).isLessThan(LEASES * 10L);
      assertThat(updatedRows(plan)).isEqualTo(LEASES);
    }
  }

  private static String array(List<String> values) {
    return "'{" + String.join(",", values) + "}'";
  }

  private static void collect(JsonNode node, List<Long> removed) {
    if (node == null) {
      return;
    }
    removed.add(node.path("Rows Removed by Join Filter").asLong(0));
    for (JsonNode child : node.path("Plans")) {
      collect(child, removed);
    }
  }

  private static long updatedRows(JsonNode node) {
    if (node == null) {
      return 0;
    }
    if ("Update".equals(node.path("Operation").asText())) {
      return node.path("Actual Rows").asLong();
    }
    long found = 0;
    for (JsonNode child : node.path("Plans")) {
      found = Math.max(found, updatedRows(child));
    }
    return found;
  }
}
