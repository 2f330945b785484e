package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAll;
import static dev.flows.ops.bench.Runs.count;
import static dev.flows.ops.bench.Runs.suspended;
import static dev.flows.ops.bench.WorkerProcesses.awaitReady;
import static dev.flows.ops.bench.WorkerProcesses.rssBytes;
import static dev.flows.ops.bench.WorkerProcesses.threads;
import static dev.flows.ops.bench.WorkerProcesses.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Runs sleeping in f.sleepUntil on one worker: its RSS and threads, then their resumption lag. */
record SleepersBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;

  /** Sleeping runs of the sleepers section: 10,000 but in the smoke test. */
  static int sleepers(String mode) {
    return mode.equals("smoke") ? 0 : 10_000;
  }

  /** How far ahead the sleepers' common due time is set: past admitting and suspending them. */
  static final Duration SLEEPERS_DUE = Duration.ofSeconds(150);

  /**
   * 10,000 runs sleeping at once ({@code f.sleepUntil}) on one worker: its RSS and thread count
   * while they all sleep, then the lag from their due time to the start of the attempt that resumes
   * each (p50, p99; due time from the body's memo, resumption from the journal).
   */
  @Override
  public void run() throws Exception {
    int n = sleepers(plan.mode());
    if (n == 0) {
      return;
    }
    log("a worker holding " + n + " sleeping runs");
    String url = pg.fresh("bench_sleepers", true);
    Path wlog = Files.createTempFile("bench-worker", ".log");
    Process w = worker(url, DEFAULT_LEASE, 64, wlog, WorkerProcesses.WAITING_WORKER_JVM);
    try {
      awaitReady(w, wlog);
      long threadsIdle = threads(w.pid());
      Instant due = Instant.now().plus(SLEEPERS_DUE);
      admitAll(
          url,
          n,
          Engines.loaded(BenchFlows.SLEEPER),
          JSON.objectNode().put("until", due.toString()),
          Engines.inventory(
              Jvm.stdioServer(BenchFlows.STDIO, List.of(), Map.of()), Optional.empty()));
      long asleep = 0;
      while (Instant.now().isBefore(due.minusSeconds(10)) && (asleep = suspended(url)) < n) {
        Thread.sleep(200);
      }
      long rss = rssBytes(w.pid());
      long threadsAsleep = threads(w.pid());
      log("  asleep " + asleep + " rss " + rss / (1 << 20) + " MiB threads " + threadsAsleep);
      long doneBy = System.nanoTime() + SLEEPERS_DUE.multipliedBy(2).toNanos();
      while (System.nanoTime() < doneBy
          && count(url, "SELECT count(*) FROM flows.runs WHERE status = 'succeeded'") < n) {
        Thread.sleep(500);
      }
      List<Double> lags = lagsMs(url);
      java.util.Collections.sort(lags);
      report.sleepers(
          new Report.Sleepers(
              n,
              asleep,
              rss,
              threadsIdle,
              threadsAsleep,
              lags.size(),
              lags.isEmpty() ? Double.NaN : lags.get(lags.size() / 2),
              lags.isEmpty()
                  ? Double.NaN
                  : lags.get(Math.min(lags.size() - 1, lags.size() * 99 / 100))));
    } finally {
      w.destroyForcibly();
      w.waitFor(30, TimeUnit.SECONDS);
    }
    pg.drop("bench_sleepers");
  }

  /** Each sleeper's lag from its due time to the attempt that resumed it, in ms. */
  static List<Double> lagsMs(String url) throws Exception {
    List<Double> lags = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url);
        ResultSet r =
            c.createStatement()
                .executeQuery(
                    "SELECT extract(epoch FROM s.at - CAST(e.output ->> 'until' AS timestamptz))"
                        + " * 1000 FROM flows.effect_elections e JOIN flows.journal_entries s"
                        + " ON s.run_id = e.run_id AND s.entry_type = 'step.attempt.started'"
                        + " AND s.attempt = 2 WHERE e.surface_path = '/memo/1'")) {
      while (r.next()) {
        lags.add(r.getDouble(1));
      }
    }
    return lags;
  }
}
