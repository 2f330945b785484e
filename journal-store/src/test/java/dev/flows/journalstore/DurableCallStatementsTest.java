package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimedEffect;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The two statements of a durable call ({@code flows.start_claimed} before the request, {@code
 * flows.confirm_and_succeed} after the answer) do no work per call that the call does not need: one
 * round trip each (no transaction control, no read before or after), no NOTIFY, no statement
 * planned again per call, and the end's fence taken once.
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

  @Test
  void eachStatementOfADurableCallIsOneRoundTripWithoutTransactionControl() throws Exception {
    try (PostgresFixture pg = PostgresFixture.create("call_trips")) {
      List<String> sent = new ArrayList<>();
      Thread caller = Thread.currentThread();
      DataSource counted = counting(pg.db().dataSource(), sent, caller);
      try (PostgresJournal journal =
          PostgresJournal.using(
              counted,
              PostgresFixture.config(pg.db(), JournalStoreConfig.GroupCommitLimits.DEFAULTS))) {
        ClaimedEffect call = elect(journal);
        assertThat(sent).singleElement().asString().contains("flows.start_claimed(");
        sent.clear();
        confirm(journal, call);
        assertThat(sent).singleElement().asString().contains("flows.confirm_and_succeed(");
      }
    }
  }

  @Test
  void neitherStatementOfADurableCallNotifiesButAQueuedStartDoes() throws Exception {
    // The body that made the call waits for it in this process: a NOTIFY would wake every
    // claimer and watcher elsewhere, and take the queue's global lock at each commit.
    try (PostgresFixture pg = PostgresFixture.create("call_quiet");
        Connection listening = DriverManager.getConnection(pg.db().jdbcUrl());
        Statement st = listening.createStatement()) {
      st.execute("LISTEN flows_work; LISTEN flows_runs");
      confirm(pg.journal(), elect(pg.journal()));
      assertThat(notifications(listening)).isEmpty();

      pg.journal()
          .admit(StartRun.of("queued", Specs.run("queued", Specs.agent("s", 1))), Admit.queued());
      assertThat(notifications(listening)).containsExactly("flows_work");
    }
  }

  private static ClaimedEffect elect(Journal journal) {
    return journal.admit(
        StartRun.of("k", Specs.run("inline", Specs.agent("call", 1, SURFACE))),
        Admit.claimedHere(new WorkerId("w"), Duration.ofSeconds(30)).electing(SURFACE));
  }

  private static void confirm(Journal journal, ClaimedEffect call) {
    JsonNode receipt = JsonNodeFactory.instance.objectNode().put("type", "mcp");
    journal.confirmAndComplete(
        call.attempt().lease(), SURFACE, Optional.of(receipt), new StepOutcome.Succeeded(receipt));
  }

  /** The channels of the notifications {@code c} has received, once a round trip has passed. */
  private static List<String> notifications(Connection c) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute("SELECT 1");
    }
    PGNotification[] got = c.unwrap(PGConnection.class).getNotifications(200);
    return got == null ? List.of() : Arrays.stream(got).map(PGNotification::getName).toList();
  }

  /**
   * {@code target} with what {@code caller} sends on its connections recorded in {@code sent}: each
   * statement's SQL, and each transaction control call by name.
   */
  private static DataSource counting(DataSource target, List<String> sent, Thread caller) {
    Set<String> statements = Set.of("prepareStatement", "createStatement", "prepareCall");
    Set<String> control = Set.of("commit", "rollback", "setAutoCommit", "setSavepoint", "isValid");
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, m, args) -> {
              Object answer = invoke(m, target, args);
              if (!m.getName().equals("getConnection")) {
                return answer;
              }
              Connection real = (Connection) answer;
              return Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (p, cm, cargs) -> {
                    if (Thread.currentThread() == caller) {
                      if (statements.contains(cm.getName())) {
                        sent.add(cargs == null ? cm.getName() : String.valueOf(cargs[0]));
                      } else if (control.contains(cm.getName())
                          && !(cm.getName().equals("setAutoCommit")
                              && real.getAutoCommit() == (Boolean) cargs[0])) {
                        sent.add(cm.getName());
                      }
                    }
                    return invoke(cm, real, cargs);
                  });
            });
  }

  private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args)
      throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
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
