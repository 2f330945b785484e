package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The two statements of a durable call ({@code flows.start_claimed} before the request, {@code
 * flows.confirm_and_succeed} after the answer) do no work per call that the call does not need: no
 * statement planned again per call, and the end's fence taken once.
 */
class DurableCallStatementsTest {
  private static final String SURFACE = "/mcp/y";

  @Test
  void bothStatementsOfADurableCallRunOnGenericPlansSoNoneIsPlannedAgainPerCall() throws Exception {
    // The run trigger's check, fired by start_claimed, kept a custom plan, planned afresh on every
    // call (pg_stat_statements: one plan per call), without the functions' setting.
    try (PostgresFixture pg = PostgresFixture.create("call_plans")) {
      for (String function : List.of("flows.start_claimed", "flows.confirm_and_succeed")) {
        assertThat(
                pg.rows(
                    "SELECT array_to_string(proconfig, ',') FROM pg_proc"
                        + " WHERE oid = '"
                        + function
                        + "'::regproc"))
            .as(function)
            .containsExactly(List.of("plan_cache_mode=force_generic_plan"));
      }
    }
  }

  @Test
  void aDurableCallsEndTakesItsAttemptsFenceOnceAndSucceeds() throws Exception {
    // The end used to take the fence, confirm, then complete through succeed_attempt, which took
    // the same fence again.
    try (PostgresFixture pg = PostgresFixture.create("call_fence")) {
      var call =
          pg.journal()
              .admit(
                  StartRun.of("k", Specs.run("inline", Specs.agent("call", 1, SURFACE))),
                  Admit.claimedHere(new WorkerId("w"), Duration.ofSeconds(30)).electing(SURFACE));
      LeaseToken lease = call.attempt().lease();
      try (Connection c = DriverManager.getConnection(pg.db().jdbcUrl());
          Statement st = c.createStatement()) {
        c.setAutoCommit(false);
        st.execute("SET LOCAL track_functions = 'pl'");
        assertThat(confirmAndSucceed(c, lease)).isEqualTo("ok");
        try (ResultSet rs =
            st.executeQuery(
                "SELECT pg_stat_get_xact_function_calls('flows.lock_live_attempt'::regproc)")) {
          rs.next();
          assertThat(rs.getLong(1)).isEqualTo(1);
        }
        c.rollback();
      }
    }
  }

  private static String confirmAndSucceed(Connection c, LeaseToken lease) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT outcome FROM flows.confirm_and_succeed(?, ?, ?, ?, ?, '{}'::jsonb,"
                + " '{}'::jsonb, 'succeeded', CAST(? AS jsonb), '{\"reason\":\"success\"}'::jsonb,"
                + " '{\"reason\":\"success\"}'::jsonb, NULL)")) {
      ps.setString(1, lease.runId().value());
      ps.setString(2, lease.stepId());
      ps.setInt(3, lease.attempt());
      ps.setString(4, lease.leaseId());
      ps.setString(5, SURFACE);
      ps.setString(6, "{\"surfacePath\":\"" + SURFACE + "\"}");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }
}
