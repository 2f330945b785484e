package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAll;
import static dev.flows.ops.bench.Runs.leasesExpired;
import static dev.flows.ops.bench.Runs.running;
import static dev.flows.ops.bench.Runs.suspended;
import static dev.flows.ops.bench.WorkerProcesses.awaitReady;
import static dev.flows.ops.bench.WorkerProcesses.heapUsed;
import static dev.flows.ops.bench.WorkerProcesses.liveHeap;
import static dev.flows.ops.bench.WorkerProcesses.rssBytes;
import static dev.flows.ops.bench.WorkerProcesses.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** A worker holding runs whose bodies wait on slow MCP calls: memory and renewal writes. */
record WaitingBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;

  /** How often a worker renews one lease: a third of what remains (WorkerConfig.renewalDivisor). */
  static double renewalPeriodSeconds() {
    return DEFAULT_LEASE.toMillis() / 1000.0 / WorkerConfig.DEFAULT_RENEWAL_DIVISOR;
  }

  /**
   * The longest the waiting section waits, after the ramp, for every body to suspend: a ramp of
   * 10,000 bodies saturates the worker's pool, and some suspensions retry past suspendAfter.
   */
  static final Duration SUSPEND_WAIT = SdkConfig.DEFAULT_SUSPEND_AFTER.plusSeconds(50);

  /** The MCP call timeout of the waiting worker: long enough to start 10,000 bodies. */
  static final Duration WAITING_CALL_TIMEOUT = Duration.ofMinutes(10);

  @Override
  public void run() throws Exception {
    int n = plan.waitingRuns();
    if (n == 0) {
      return;
    }
    log("a worker holding " + n + " waiting runs");
    String url = pg.fresh("bench_waiting", true);
    Path wlog = Files.createTempFile("bench-worker", ".log");
    McpServerConfig.Stdio stdio = Jvm.stdioServer(BenchFlows.STDIO, List.of(), Map.of());
    Inventory inv = Engines.inventory(stdio, Optional.empty());
    // The calls must outlast the ramp and the measurement, and stay within the worker's call
    // timeout (raised for this section only: 10,000 bodies take a while to start).
    long sleepMs = WAITING_CALL_TIMEOUT.toMillis() / 2;
    Process w =
        worker(
            url,
            DEFAULT_LEASE,
            2 * n + 8,
            wlog,
            WorkerProcesses.WAITING_WORKER_JVM,
            List.of(String.valueOf(WAITING_CALL_TIMEOUT.toMillis())));
    try {
      awaitReady(w, wlog);
      Report.Waiting waiting = measure(w, wlog, url, n, sleepMs, inv);
      report.waiting(waiting);
      log("  held " + waiting.held() + " rss " + waiting.rss() / (1 << 20) + " MiB");
    } finally {
      w.destroyForcibly();
      w.waitFor(30, TimeUnit.SECONDS);
    }
    pg.drop("bench_waiting");
  }

  /** Holds {@code n} waiting runs on the ready worker {@code w} and measures one window. */
  private Report.Waiting measure(
      Process w, Path wlog, String url, int n, long sleepMs, Inventory inv) throws Exception {
    long t0 = System.nanoTime();
    admitAll(url, n, Engines.loaded(BenchFlows.SLOW), JSON.objectNode().put("ms", sleepMs), inv);
    // Held: every call running, and every body either waiting in memory (its attempt running)
    // or suspended (SdkConfig.suspendAfter, its attempt given back until the call ends).
    long held = 0;
    long until = System.nanoTime() + Duration.ofMillis(sleepMs / 2).toNanos();
    while (System.nanoTime() < until && (held = running(url) + suspended(url)) < 2L * n) {
      Thread.sleep(200);
    }
    // Bodies give their attempts back SdkConfig.suspendAfter into their wait (at once past
    // maxResidentWaits): the window starts once they all have and only the calls still hold
    // attempts (or at SUSPEND_WAIT after the ramp, if some never do: the table shows how many).
    long suspendBy = System.nanoTime() + SUSPEND_WAIT.toNanos();
    while (System.nanoTime() < suspendBy && (suspended(url) < n || running(url) > n)) {
      Thread.sleep(200);
    }
    long suspendedAtStart = suspended(url);
    double rampSeconds = (System.nanoTime() - t0) / 1e9;
    quiet(url);
    Pg.Counters a = pg.counters(url);
    long windowStart = System.nanoTime();
    Thread.sleep((long) (plan.waitingWindowSeconds() * 1000));
    Pg.Counters b = pg.counters(url);
    double window = (System.nanoTime() - windowStart) / 1e9;
    long heldAfter = running(url) + suspended(url);
    long suspendedAtEnd = suspended(url);
    long rss = rssBytes(w.pid());
    long heap = heapUsed(wlog);
    // Heap in use counts garbage not yet collected; after a full GC it is the live set.
    long live = liveHeap(w.pid(), wlog);
    return new Report.Waiting(
        n,
        held,
        heldAfter,
        suspendedAtStart,
        suspendedAtEnd,
        rampSeconds,
        b.minus(a),
        window,
        rss,
        heap,
        live,
        leasesExpired(url),
        renewalPeriodSeconds());
  }

  /** No database housekeeping in the window, and the ramp's transactions out of its counts. */
  private static void quiet(String url) throws Exception {
    // Autovacuum/analyze after the ramp's inserts would land in the window and be counted as
    // the worker's writes: do it now, then let the statistics settle.
    try (Connection c = DriverManager.getConnection(url)) {
      c.createStatement().execute("VACUUM ANALYZE");
      // Renewing 20,000 leases dirties enough rows for an auto-analyze every period or so, and
      // its transaction would be counted as the worker's: housekeeping off for the window.
      c.createStatement().execute(Runs.NO_AUTOVACUUM);
    }
    // The ramp's own transactions must not be counted in the window.
    Pg.settleIdleStats();
  }
}
