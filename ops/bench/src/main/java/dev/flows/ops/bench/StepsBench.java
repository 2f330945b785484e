package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAndWait;
import static dev.flows.ops.bench.Runs.medianStepRate;
import static dev.flows.ops.bench.Runs.stepsInput;
import static dev.flows.ops.bench.Runs.warmUp;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;

/** f.step throughput: c flows of many steps admitted at once, from admission to the last end. */
record StepsBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;

  @Override
  public void run() throws Exception {
    log("f.step throughput");
    report.stepsPerFlow(plan.stepsPerFlow());
    String url = pg.fresh("bench_steps", true);
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      for (int c : plan.concurrencies()) {
        try (FlowsEngine engine = Engines.engine(journal, c, DEFAULT_LEASE)) {
          engine.startWorker();
          int n = c == 1 ? plan.stepsPerFlow() * 4 : plan.stepsPerFlow();
          // Warm-up: the measured workload, unmeasured, until the JIT has had time to compile
          // the path (a handful of calls measures the interpreter, not the engine).
          warmUp(
              plan.warmupSeconds(),
              () -> admitAndWait(url, engine, BenchFlows.STEPS, c, i -> stepsInput("w", n)));
          double rate = medianStepRate(url, engine, c, n, "m", "  c=" + c);
          report.steps(c, rate);
        }
      }
    }
    pg.drop("bench_steps");
  }
}
