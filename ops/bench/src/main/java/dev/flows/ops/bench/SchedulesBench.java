package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.count;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.Overlap;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.worker.WorkerConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Schedules on one worker: 10,000 schedules of one flow, each a cron {@code * * * * *}, all due at
 * the same second (second 0 of each minute: the hard case); the lag of each tick from its nominal
 * time to its run's admission ({@code flows.runs.created_at}), p50 and p99, over one minute's
 * ticks.
 */
record SchedulesBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  /**
   * Schedules of the section: 10,000, none in the smoke test (it would wait for a minute's
   * boundary).
   */
  static int schedules(String mode) {
    return mode.equals("smoke") ? 0 : 10_000;
  }

  /** How long the ticks of one minute may take to be admitted before the section gives up. */
  private static final Duration PATIENCE = Duration.ofMinutes(3);

  @Override
  public void run() throws Exception {
    int n = schedules(plan.mode());
    if (n == 0) {
      return;
    }
    log("schedules: " + n + " every-minute schedules on one worker");
    String url = pg.fresh("bench_schedules", true);
    // Created as the journal stores them, in one statement: 10,000 creates one by one would
    // take longer than the minute being measured.
    Instant nominal = Instant.now().plusSeconds(20).truncatedTo(ChronoUnit.MINUTES).plusSeconds(60);
    create(url, n, nominal);
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = Engines.engine(journal, 16, WorkerConfig.DEFAULT_LEASE)) {
      engine.startWorker();
      long deadline =
          System.nanoTime() + Duration.between(Instant.now(), nominal).plus(PATIENCE).toNanos();
      String started =
          "SELECT count(*) FROM flows.schedule_entries e WHERE " + ofTheMinute(nominal);
      while (System.nanoTime() < deadline && count(url, started) < n) {
        Thread.sleep(500);
      }
    }
    List<Double> lags = lagsMs(url, nominal);
    Collections.sort(lags);
    report.schedules(
        new Report.Schedules(
            n,
            lags.size(),
            at(lags, 50),
            at(lags, 99),
            lags.isEmpty() ? Double.NaN : lags.getLast()));
    log("  admitted " + lags.size() + " of " + n + " ticks");
    pg.drop("bench_schedules");
  }

  private static double at(List<Double> sorted, int percentile) {
    return sorted.isEmpty()
        ? Double.NaN
        : sorted.get(Math.min(sorted.size() - 1, sorted.size() * percentile / 100));
  }

  private static void create(String url, int n, Instant nominal) throws Exception {
    ScheduleDefinition d =
        ScheduleDefinition.of("s", BenchFlows.STEPS.header().name(), Calendar.cron("* * * * *"))
            .withOverlap(Overlap.ALLOW_ALL)
            .withCatchUpWindow(PATIENCE);
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO flows.schedules (name, flow, definition, next_tick_at, due_at,"
                    + " created_at, updated_at)"
                    + " SELECT 'bench-' || i, ?, jsonb_set(?::jsonb, '{name}', to_jsonb('bench-' ||"
                    + " i)), ?, ?, now(), now() FROM generate_series(1, ?) i")) {
      s.setString(1, d.flow());
      s.setString(2, d.toJson().toString());
      s.setObject(3, java.sql.Timestamp.from(nominal));
      s.setObject(4, java.sql.Timestamp.from(nominal));
      s.setInt(5, n);
      s.executeUpdate();
    }
  }

  /**
   * The started ticks of the measured minute only: the next minute's ticks, taken while the first
   * minute's are caught up, would count towards {@code n} and mix into the lags.
   */
  private static String ofTheMinute(Instant nominal) {
    return "e.entry_type = 'schedule.tick.started' AND e.nominal_at = '" + nominal + "'";
  }

  /** Each started tick of minute {@code nominal}: its lag to its run's admission, in ms. */
  private static List<Double> lagsMs(String url, Instant nominal) throws Exception {
    List<Double> lags = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url);
        ResultSet r =
            c.createStatement()
                .executeQuery(
                    "SELECT extract(epoch FROM r.created_at - e.nominal_at) * 1000"
                        + " FROM flows.schedule_entries e JOIN flows.runs r ON r.run_id = e.run_id"
                        + " WHERE "
                        + ofTheMinute(nominal))) {
      while (r.next()) {
        lags.add(r.getDouble(1));
      }
    }
    return lags;
  }
}
