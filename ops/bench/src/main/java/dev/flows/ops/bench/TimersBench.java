package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.count;
import static dev.flows.ops.bench.Runs.suspended;
import static dev.flows.ops.bench.WorkerProcesses.awaitReady;
import static dev.flows.ops.bench.WorkerProcesses.liveHeap;
import static dev.flows.ops.bench.WorkerProcesses.rssBytes;
import static dev.flows.ops.bench.WorkerProcesses.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Many timers at once: N runs asleep in {@code f.sleepUntil} on one worker of the product's default
 * capacity, a tenth of them due within the same second (the rest a day later): the worker's RSS and
 * live heap with all of them asleep, then the lag from each due time to the attempt that resumes
 * it.
 */
record TimersBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final String DB = "bench_timers";

  /** Overrides the plan's sleeping runs (a tenth of them come due in the same second). */
  static final String RUNS_ENV = "FLOWS_BENCH_TIMERS_RUNS";

  /** Slack past the time the due runs are expected to take to fall asleep. */
  private static final Duration DUE_SLACK = Duration.ofSeconds(15);

  /**
   * Runs due tomorrow admitted through the engine (their rate sets the due runs' lead time); the
   * rest of those are copies of the first.
   */
  private static final int REAL_SLEEPERS = 1_000;

  /** Runs asleep, and how many of them come due in the same second. */
  record Size(int asleep, int due) {
    static Size of(String mode) {
      int n =
          Optional.ofNullable(System.getenv(RUNS_ENV))
              .map(Integer::parseInt)
              .orElse(
                  switch (mode) {
                    case "smoke" -> 0;
                    case "quick" -> 10_000;
                    default -> 100_000;
                  });
      return new Size(n, n / 10);
    }
  }

  /**
   * What the section measured: sizes, the worker's memory idle and with every run asleep, the rate
   * runs fell asleep at, and the wake-up lags (ms) of the runs that came due.
   */
  record Result(
      Size size,
      long asleep,
      double asleepPerSecond,
      long rssIdle,
      long rssAsleep,
      long heapIdle,
      long heapAsleep,
      int resumed,
      Stats lag,
      double wakeSeconds) {}

  @Override
  public void run() throws Exception {
    Size size = Size.of(plan.mode());
    if (size.due() == 0) {
      return;
    }
    log("timers: " + size.asleep() + " runs asleep on one worker, " + size.due() + " due at once");
    String url = pg.fresh(DB, true);
    Path wlog = Files.createTempFile("bench-timers-worker", ".log");
    Process w =
        worker(
            url,
            WorkerConfig.DEFAULT_LEASE,
            WorkerConfig.DEFAULT_CAPACITY,
            wlog,
            WorkerProcesses.WAITING_WORKER_JVM);
    try {
      awaitReady(w, wlog);
      Thread.sleep(2_000);
      long rssIdle = rssBytes(w.pid());
      long heapIdle = liveHeap(w.pid(), wlog);
      report.timers(measure(url, size, w, wlog, rssIdle, heapIdle));
    } finally {
      w.destroyForcibly();
      w.waitFor(30, TimeUnit.SECONDS);
    }
    pg.drop(DB);
  }

  private Result measure(String url, Size size, Process w, Path wlog, long rssIdle, long heapIdle)
      throws Exception {
    LoadedFlow sleeper = Engines.loaded(BenchFlows.SLEEPER);
    int late = size.asleep() - size.due();
    int real = Math.min(late, REAL_SLEEPERS);
    String tomorrow = Instant.now().plus(Duration.ofDays(1)).toString();
    long t0 = System.nanoTime();
    admit(url, real, sleeper, i -> JSON.objectNode().put("until", tomorrow));
    awaitAsleep(url, real, Duration.ofMinutes(30));
    double perSecond = real / ((System.nanoTime() - t0) / 1e9);
    log("  " + real + " asleep at " + (int) perSecond + " runs/s");
    copySleepers(url, late - real);
    // The due runs must all be asleep before their second comes: leave twice the time they took.
    Instant due = Instant.now().plusMillis((long) (2_000 * size.due() / perSecond)).plus(DUE_SLACK);
    admit(
        url,
        size.due(),
        sleeper,
        i ->
            JSON.objectNode()
                .put("until", due.plusNanos(1_000_000_000L * i / size.due()).toString()));
    long asleep = awaitAsleep(url, size.asleep(), Duration.between(Instant.now(), due));
    long rssAsleep = rssBytes(w.pid());
    long heapAsleep = liveHeap(w.pid(), wlog);
    log("  asleep " + asleep + " rss " + rssAsleep / (1 << 20) + " MiB");
    long doneBy = System.nanoTime() + Duration.between(Instant.now(), due).toNanos();
    doneBy += Duration.ofMinutes(10).toNanos();
    while (System.nanoTime() < doneBy && succeeded(url) < size.due()) {
      Thread.sleep(200);
    }
    List<Double> lags = SleepersBench.lagsMs(url);
    List<Long> nanos = lags.stream().map(ms -> (long) (ms * 1e6)).toList();
    Stats lag = Stats.of(nanos);
    double wake = wakeSeconds(url);
    return new Result(
        size, asleep, perSecond, rssIdle, rssAsleep, heapIdle, heapAsleep, lags.size(), lag, wake);
  }

  /**
   * Copies ({@link GrowthFill}) of the first run asleep until tomorrow, so the runs due later are
   * admitted in seconds instead of at the rate bodies fall asleep: each copy is the rows that run's
   * body wrote when it suspended in {@code f.sleepUntil}, its attempt given back.
   */
  private static void copySleepers(String url, int copies) throws Exception {
    if (copies <= 0) {
      return;
    }
    String template;
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        java.sql.ResultSet r =
            c.createStatement()
                .executeQuery("SELECT run_id FROM flows.runs ORDER BY created_seq LIMIT 1")) {
      r.next();
      template = r.getString(1);
    }
    long t0 = System.nanoTime();
    GrowthFill.copies(url, template, "ts-", copies);
    GrowthFill.analyze(url);
    log("  " + copies + " more asleep (copies) in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
  }

  /** From the first due time to the last resumption, of the runs that resumed, in seconds. */
  private static double wakeSeconds(String url) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        java.sql.ResultSet r =
            c.createStatement()
                .executeQuery(
                    "SELECT extract(epoch FROM max(s.at)"
                        + " - min(CAST(e.output ->> 'until' AS timestamptz)))"
                        + " FROM flows.effect_elections e JOIN flows.journal_entries s"
                        + " ON s.run_id = e.run_id AND s.entry_type = 'step.attempt.started'"
                        + " AND s.attempt = 2 WHERE e.surface_path = '/memo/1'")) {
      r.next();
      double v = r.getDouble(1);
      return r.wasNull() ? Double.NaN : v;
    }
  }

  /**
   * Runs that succeeded, read from the index of ended runs: polled while the worker resumes them, a
   * count of every run's row (tens of milliseconds of the database's CPU a poll) would take its
   * share of the machine from the wake-ups measured.
   */
  private static long succeeded(String url) throws Exception {
    return count(
        url,
        "SELECT count(*) FROM flows.runs WHERE completed_at IS NOT NULL AND status = 'succeeded'");
  }

  /** Until {@code n} runs are asleep (their attempts given back) or {@code within} has passed. */
  private static long awaitAsleep(String url, long n, Duration within) throws Exception {
    long until = System.nanoTime() + within.toNanos();
    long asleep = 0;
    while (System.nanoTime() < until && (asleep = suspended(url)) < n) {
      Thread.sleep(200);
    }
    return asleep;
  }

  /** Admits {@code n} runs of {@code flow}, the i-th with {@code input(i)}, from 8 threads. */
  private static void admit(String url, int n, LoadedFlow flow, IntFunction<JsonNode> input)
      throws Exception {
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine admitter = Engines.engine(journal, 1, WorkerConfig.DEFAULT_LEASE)) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        JsonNode in = input.apply(i);
        fs.add(pool.submit(() -> admitter.admit(flow, in, Optional.empty(), Inventory.empty())));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      pool.shutdown();
    }
  }
}
