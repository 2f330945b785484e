package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAndWait;
import static dev.flows.ops.bench.Runs.awaitEnded;
import static dev.flows.ops.bench.Runs.stepsInput;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Run start (admission) to the first dispatch of the body. */
record LatencyBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;

  @Override
  public void run() throws Exception {
    log("run start -> first dispatch");
    String url = pg.fresh("bench_dispatch", true);
    List<Long> samples = new ArrayList<>();
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = Engines.engine(journal, 4, DEFAULT_LEASE)) {
      engine.startWorker();
      admitAndWait(url, engine, BenchFlows.STEPS, 2, i -> stepsInput("warm" + i, 1));
      for (int i = 0; i < plan.dispatchSamples(); i++) {
        String id = "d" + i;
        long t0 = System.nanoTime();
        RunRef run =
            engine
                .admit(
                    Engines.loaded(BenchFlows.STEPS),
                    stepsInput(id, 0),
                    Optional.empty(),
                    Inventory.empty())
                .runId();
        awaitEnded(url, List.of(run));
        samples.add(BenchFlows.FIRST_DISPATCH.get(id) - t0);
      }
    }
    report.dispatch(Stats.of(samples));
    pg.drop("bench_dispatch");
  }
}
