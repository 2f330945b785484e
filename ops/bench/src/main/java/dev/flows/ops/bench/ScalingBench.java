package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAndWait;
import static dev.flows.ops.bench.Runs.medianStepRate;
import static dev.flows.ops.bench.Runs.stepsInput;
import static dev.flows.ops.bench.Runs.warmUp;
import static dev.flows.ops.bench.WorkerProcesses.awaitReady;
import static dev.flows.ops.bench.WorkerProcesses.worker;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** f.step throughput over 1, 2, 4 and 8 worker processes. */
record ScalingBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  /**
   * One count of worker processes: the median steps/s, and the attempts (flow bodies claimed) of
   * the worker that claimed fewest and of the one that claimed most, warm-up included.
   */
  record Result(double stepsPerSecond, long fewestClaims, long mostClaims) {}

  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;

  /** Slots of each worker process in the scaling section; as many flows per worker are admitted. */
  static final int SCALING_CAPACITY = 16;

  @Override
  public void run() throws Exception {
    log("scaling over worker processes");
    report.scalingSteps(plan.scalingSteps());
    for (int procs : plan.workerProcesses()) {
      String url = pg.fresh("bench_scaling", true);
      List<Process> workers = new ArrayList<>();
      try {
        List<Path> logs = new ArrayList<>();
        for (int i = 0; i < procs; i++) {
          Path wlog = Files.createTempFile("bench-worker", ".log");
          logs.add(wlog);
          workers.add(worker(url, DEFAULT_LEASE, SCALING_CAPACITY, wlog, List.of()));
        }
        for (int i = 0; i < procs; i++) {
          awaitReady(workers.get(i), logs.get(i));
        }
        try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
            FlowsEngine admitter = Engines.engine(journal, 1, DEFAULT_LEASE)) {
          // Every worker's slots filled, and the same steps per flow as the f.step section. The
          // workers' JVMs start cold: the workload first runs unmeasured until the JIT has
          // compiled it in each of them, for as long per worker as the other sections warm up
          // one engine (a cold worker interprets; with one warm-up for all, more workers each
          // saw less of it, which once made this table fall with more processes).
          int flows = SCALING_CAPACITY * procs;
          int n = plan.scalingSteps();
          warmUp(
              plan.warmupSeconds() * procs,
              () -> admitAndWait(url, admitter, BenchFlows.STEPS, flows, i -> stepsInput("w", n)));
          double rate = medianStepRate(url, admitter, flows, n, "s", "  " + procs + " workers:");
          long[] spread = claimSpread(url, procs);
          report.scaling(procs, new Result(rate, spread[0], spread[1]));
        }
      } finally {
        for (Process p : workers) {
          p.destroyForcibly();
          p.waitFor(30, TimeUnit.SECONDS);
        }
      }
      pg.drop("bench_scaling");
    }
  }

  /** Fewest and most attempts per worker; a worker that claimed nothing counts as 0. */
  private static long[] claimSpread(String url, int procs) throws Exception {
    long fewest = Long.MAX_VALUE;
    long most = 0;
    int workers = 0;
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT count(*) FROM flows.step_attempts GROUP BY worker_id")) {
      while (rs.next()) {
        workers++;
        fewest = Math.min(fewest, rs.getLong(1));
        most = Math.max(most, rs.getLong(1));
      }
    }
    return new long[] {workers < procs ? 0 : fewest, most};
  }
}
