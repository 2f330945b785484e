package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.FlowVersionState;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.journal.WorkerPresence;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code flows.workers}, {@code flows.live_workers} and the served side of {@code flows.versions}.
 */
class PostgresWorkerRosterTest {
  private DataSource db;
  private PostgresWorkerRoster roster;

  @BeforeEach
  void setUp() {
    db = TestDatabase.fresh("worker_roster").dataSource();
    roster = new PostgresWorkerRoster(db);
  }

  private static WorkerPresence serving(String id, Set<String> routes, Set<String> prefixes) {
    return new WorkerPresence(
        new WorkerId(id),
        "host-a",
        42,
        Set.of("default"),
        routes,
        prefixes,
        Duration.ofSeconds(10));
  }

  private List<String> live() throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = db.getConnection();
        Statement st = c.createStatement();
        var r = st.executeQuery("SELECT worker_id FROM flows.live_workers ORDER BY worker_id")) {
      while (r.next()) {
        out.add(r.getString(1));
      }
    }
    return out;
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = db.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private List<FlowVersionState> versions(String flow) throws SQLException {
    try (Connection c = db.getConnection()) {
      return PostgresWorkerRoster.versions(c, flow);
    }
  }

  @Test
  void anAnnouncedWorkerIsLiveUntilItWithdraws() throws Exception {
    roster.announce(serving("w1", Set.of("flow:triage@1"), Set.of()));
    roster.announce(serving("w2", Set.of("flow:triage@2"), Set.of()));
    assertThat(live()).containsExactly("w1", "w2");

    roster.withdraw(new WorkerId("w1"));
    roster.withdraw(new WorkerId("nobody"));
    assertThat(live()).containsExactly("w2");
  }

  @Test
  void aWorkerThatMissedThreeRefreshesByTheDatabaseClockIsGoneAndAnAnnouncementRevivesIt()
      throws Exception {
    roster.announce(serving("w1", Set.of("flow:triage@1"), Set.of()));
    execute("UPDATE flows.workers SET last_seen = clock_timestamp() - interval '29 seconds'");
    assertThat(live()).containsExactly("w1");
    execute("UPDATE flows.workers SET last_seen = clock_timestamp() - interval '31 seconds'");
    assertThat(live()).isEmpty();
    assertThat(versions("triage")).isEmpty();

    roster.announce(serving("w1", Set.of("flow:triage@1"), Set.of()));
    assertThat(live()).containsExactly("w1");
  }

  @Test
  void aWorkerGoneForADayIsForgottenAtTheNextAnnouncement() throws Exception {
    roster.announce(serving("w1", Set.of("flow:triage@1"), Set.of()));
    execute("UPDATE flows.workers SET last_seen = clock_timestamp() - interval '25 hours'");
    roster.announce(serving("w2", Set.of(), Set.of()));
    try (Connection c = db.getConnection();
        Statement st = c.createStatement();
        var r = st.executeQuery("SELECT string_agg(worker_id, ',') FROM flows.workers")) {
      r.next();
      assertThat(r.getString(1)).isEqualTo("w2");
    }
  }

  @Test
  void aClassFlowVersionServedWithNoRunIsAVersionWithNoRunsAndItsWorkers() throws Exception {
    roster.announce(serving("w1", Set.of("flow:triage@1", "flow:triage@2", "llm"), Set.of()));
    roster.announce(serving("w2", Set.of("flow:triage@2"), Set.of()));
    roster.announce(serving("w3", Set.of("flow:other@1"), Set.of("flow:source:")));

    assertThat(versions("triage"))
        .extracting(v -> v.version() + " " + v.route() + " " + v.runs() + " " + v.workers())
        .containsExactly("1 flow:triage@1 0 [w1]", "2 flow:triage@2 0 [w1, w2]");
    assertThat(versions("triage")).allSatisfy(v -> assertThat(v.oldestStartedAt()).isEmpty());
    assertThat(versions("nothing")).isEmpty();
  }

  @Test
  void aRefreshReplacesWhatTheWorkerServes() throws Exception {
    roster.announce(serving("w1", Set.of("flow:triage@1"), Set.of()));
    roster.announce(serving("w1", Set.of("flow:triage@2"), Set.of()));
    assertThat(versions("triage")).extracting(FlowVersionState::version).containsExactly("2");
  }
}
