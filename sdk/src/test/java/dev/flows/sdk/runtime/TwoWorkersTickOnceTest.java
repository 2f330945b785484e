package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.worker.WorkerConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Two workers on one Postgres, each with the flow whose header starts it every second, race for its
 * ticks on the database clock: every nominal tick is decided once and started once.
 */
class TwoWorkersTickOnceTest {
  private static final Duration RACE = Duration.ofSeconds(8);

  @Test
  void twoWorkersRacingForEveryTickStartEachTickOnce() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("two-tickers");
    List<PostgresJournal> journals = new ArrayList<>();
    List<FlowsEngine> engines = new ArrayList<>();
    for (int i = 1; i <= 2; i++) {
      PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
      FlowsEngine engine =
          new FlowsEngine(
              journal,
              WorkerConfig.defaults(),
              SdkConfig.DEFAULTS,
              McpClientConfig.DEFAULTS,
              McpCredentials.fromEnvironment(),
              InstantSource.system(),
              new WorkerId("ticker-" + i));
      engine.register(new TickFlow());
      journals.add(journal);
      engines.add(engine);
    }
    engines.parallelStream().forEach(FlowsEngine::startWorker);
    Thread.sleep(RACE.toMillis());
    engines.forEach(FlowsEngine::close);

    List<ScheduleRecord> entries = journals.getFirst().scheduleEntries("tick");
    Map<Instant, Integer> decisions = new TreeMap<>();
    List<String> takers = new ArrayList<>();
    int started = 0;
    for (ScheduleRecord r : entries) {
      if (r.entry() instanceof ScheduleEntry.TickStarted t) {
        decisions.merge(t.nominal(), 1, Integer::sum);
        assertThat(t.created()).isTrue();
        takers.add(r.by());
        started++;
      } else if (r.entry() instanceof ScheduleEntry.TickNotStarted t) {
        decisions.merge(t.nominal(), 1, Integer::sum);
      }
    }
    assertThat(entries.getFirst().entry().type()).isEqualTo("schedule.created");
    assertThat(entries.stream().filter(r -> r.entry().type().equals("schedule.created")))
        .hasSize(1);
    assertThat(decisions.size()).isGreaterThanOrEqualTo((int) RACE.toSeconds() - 3);
    assertThat(decisions.values()).allMatch(n -> n == 1);
    Instant first = decisions.keySet().iterator().next();
    Instant last = ((TreeMap<Instant, Integer>) decisions).lastKey();
    assertThat(decisions).hasSize((int) Duration.between(first, last).toSeconds() + 1);
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*), count(DISTINCT admission_key) FROM flows.runs"
                    + " WHERE admission_key LIKE 'schedule:tick:%'")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(started);
      assertThat(rs.getInt(2)).isEqualTo(started);
    }
    journals.forEach(PostgresJournal::close);
  }
}
