package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.WorkerProcesses.awaitReady;
import static dev.flows.ops.bench.WorkerProcesses.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** SIGKILL of a worker to the next attempt of its run on a survivor, per lease. */
record RecoveryBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** A shorter reconcile interval, measured beside the default to show how much it buys. */
  static final Duration FAST_RECONCILE = Duration.ofSeconds(1);

  /** Attempt start times of the run's root step, from the journal (database clock). */
  private static List<Instant> attemptStarts(String url, RunRef run) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT at FROM flows.journal_entries WHERE run_id = ?"
                    + " AND entry_type = 'step.attempt.started' ORDER BY seq")) {
      ps.setString(1, run.value());
      List<Instant> out = new ArrayList<>();
      try (ResultSet r = ps.executeQuery()) {
        while (r.next()) {
          out.add(r.getTimestamp(1).toInstant());
        }
      }
      return out;
    }
  }

  private static List<Instant> awaitAttempts(String url, RunRef run, int n, Duration timeout)
      throws Exception {
    long until = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < until) {
      List<Instant> s = attemptStarts(url, run);
      if (s.size() >= n) {
        return s;
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("no attempt #" + n + " of " + run + " within " + timeout);
  }

  private void recovery(Duration lease, Duration reconcile, boolean judged) throws Exception {
    List<Long> samples = new ArrayList<>();
    for (int i = 0; i < plan.recoverySamples(); i++) {
      String url = pg.fresh("bench_recovery", true);
      Path wlog = Files.createTempFile("bench-worker", ".log");
      Process victim = worker(url, lease, 4, wlog, List.of());
      try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
        awaitReady(victim, wlog);
        FlowsEngine admitter = Engines.engine(journal, 1, lease, reconcile);
        RunRef run =
            admitter
                .admit(
                    Engines.loaded(BenchFlows.HOLD),
                    JSON.objectNode().put("ms", Duration.ofMinutes(10).toMillis()),
                    Optional.empty(),
                    Inventory.empty())
                .runId();
        awaitAttempts(url, run, 1, Duration.ofSeconds(60));
        // The survivor is up and idle before the kill, as in a deployment.
        try (FlowsEngine survivor = admitter) {
          survivor.startWorker();
          Thread.sleep(500);
          Instant killed = Instant.now();
          victim.destroyForcibly();
          victim.waitFor(30, TimeUnit.SECONDS);
          List<Instant> starts = awaitAttempts(url, run, 2, lease.plus(Duration.ofSeconds(60)));
          samples.add(Duration.between(killed, starts.get(1)).toNanos());
          survivor.cancelTree(run, "benchmark done");
        }
      } finally {
        victim.destroyForcibly();
      }
      pg.drop("bench_recovery");
    }
    report.recovery(lease, reconcile, judged, Stats.of(samples));
    log("  lease " + lease + " reconcile " + reconcile + " p50 " + Stats.of(samples).p50() + " ms");
  }

  @Override
  public void run() throws Exception {
    log("recovery after SIGKILL");
    for (Duration lease : plan.recoveryLeases()) {
      recovery(lease, WorkerConfig.DEFAULT_RECONCILE_INTERVAL, true);
    }
    if (!plan.recoveryLeases().isEmpty()) {
      recovery(plan.recoveryLeases().getFirst(), FAST_RECONCILE, false);
    }
  }
}
