package dev.flows.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.runtime.FlowsEngine;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Eight worker JVMs ({@link BenchWorkerMain}) on one Postgres: how the claims spread, that no step
 * is claimed twice, and what lease renewal costs each worker, all read from the database.
 */
class ManyWorkersTest {
  private static final int WORKERS = 8;
  private static final int CAPACITY = 4;

  /** Two waves: every slot of every worker is taken twice over. */
  private static final int RUNS = 2 * WORKERS * CAPACITY;

  /** How long each run's body holds its attempt, and so its lease. */
  private static final Duration HOLD = Duration.ofSeconds(4);

  /**
   * Renewed every third of it (WorkerConfig's renewalDivisor): a period of two seconds, with room
   * for eight JVMs starved of CPU on two shared cores.
   */
  private static final Duration LEASE = Duration.ofSeconds(6);

  private static final Duration PERIOD = LEASE.dividedBy(3);

  @Test
  void eightWorkerProcessesEachClaimNoStepTwiceAndRenewInOneWritePerPeriod() throws Exception {
    String url = TestDatabase.fresh("many_workers").jdbcUrl();
    execute(url, resource("renewals.sql"));
    List<Process> workers = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    try {
      for (int i = 0; i < WORKERS; i++) {
        Path log = Files.createTempFile("many-workers", ".log");
        logs.add(log);
        workers.add(
            WorkerProcesses.worker(
                url,
                LEASE,
                CAPACITY,
                log,
                List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx192m")));
      }
      for (int i = 0; i < WORKERS; i++) {
        WorkerProcesses.awaitReady(workers.get(i), logs.get(i));
      }
      try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
          FlowsEngine admitter = Engines.engine(journal, 1, LEASE)) {
        Runs.admitAndWait(
            url,
            admitter,
            BenchFlows.HOLD,
            RUNS,
            i -> JsonNodeFactory.instance.objectNode().put("ms", HOLD.toMillis()));
      }
    } finally {
      for (Process p : workers) {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
      }
      for (Path log : logs) {
        Files.deleteIfExists(log);
      }
    }

    Map<String, Long> attempts =
        counts(url, "SELECT worker_id, count(*) FROM flows.step_attempts GROUP BY worker_id");
    assertThat(attempts).as("attempts by worker").hasSize(WORKERS);
    assertThat(counts(url, "SELECT status::text, count(*) FROM flows.runs GROUP BY status"))
        .isEqualTo(Map.of("succeeded", (long) RUNS));
    // A step is claimed again only once its attempt is over (a lease that expired on a starved
    // worker): never two claims of one attempt, never an attempt claimed while the one before
    // it held the step.
    assertThat(
            counts(
                url,
                "SELECT run_id || '/' || step_id || '/' || attempt, count(*)"
                    + " FROM flows.step_attempts GROUP BY run_id, step_id, attempt"
                    + " HAVING count(*) > 1"))
        .as("attempts claimed more than once")
        .isEmpty();
    assertThat(
            counts(
                url,
                "SELECT a.run_id || '/' || a.step_id || '/' || b.attempt, 1"
                    + " FROM flows.step_attempts a JOIN flows.step_attempts b"
                    + " ON b.run_id = a.run_id AND b.step_id = a.step_id"
                    + " AND b.attempt = a.attempt + 1"
                    + " WHERE a.ended_at IS NULL OR a.ended_at > b.started_at"))
        .as("attempts claimed while the one before held the step")
        .isEmpty();
    assertThat(
            counts(
                url,
                "SELECT run_id || '/' || step_id, count(*) FROM flows.step_attempts"
                    + " WHERE reason = 'success' GROUP BY run_id, step_id HAVING count(*) <> 1"))
        .as("steps not completed exactly once")
        .isEmpty();

    // Per worker: the renewal transactions against the periods it held a lease, plus one renewal
    // before the work per claim that started attempts (attempts claimed together share it).
    Map<String, Long> writes =
        counts(url, "SELECT worker_id, count(DISTINCT xid) FROM probe.renewals GROUP BY worker_id");
    Map<String, Long> renewed =
        counts(url, "SELECT worker_id, count(*) FROM probe.renewals GROUP BY worker_id");
    Map<String, Long> claims =
        counts(
            url,
            "SELECT worker_id, count(DISTINCT started_at) FROM flows.step_attempts"
                + " GROUP BY worker_id");
    Map<String, Long> heldMillis =
        counts(
            url,
            "SELECT worker_id,"
                + " (extract(epoch FROM max(ended_at) - min(started_at)) * 1000)::bigint"
                + " FROM flows.step_attempts GROUP BY worker_id");
    assertThat(writes.keySet()).containsExactlyInAnyOrderElementsOf(attempts.keySet());
    for (String w : attempts.keySet()) {
      long periods = heldMillis.get(w) / PERIOD.toMillis() + 1;
      Bench.log(
          String.format(
              "%s: %d attempts in %d claims, %d ms held (%d periods), %d renewal writes of %d"
                  + " leases",
              w,
              attempts.get(w),
              claims.get(w),
              heldMillis.get(w),
              periods,
              writes.get(w),
              renewed.get(w)));
      assertThat(writes.get(w))
          .as(
              "renewal writes of %s (%d leases renewed, %d attempts in %d claims, %d ms held)",
              w, renewed.get(w), attempts.get(w), claims.get(w), heldMillis.get(w))
          .isLessThanOrEqualTo(periods + claims.get(w));
    }
  }

  private static String resource(String name) throws Exception {
    try (InputStream in = ManyWorkersTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static void execute(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static Map<String, Long> counts(String url, String sql) throws Exception {
    Map<String, Long> out = new HashMap<>();
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getLong(2));
      }
    }
    return out;
  }
}
