package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitCommands;
import static dev.flows.ops.bench.Runs.awaitEnded;
import static dev.flows.ops.bench.Runs.warmUp;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.spec.StepKind;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.StepExecutor;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * Deterministic no-op child steps: a backlog drained by a worker with a no-op executor, then by the
 * journal alone ({@link JournalFloor#noopAttempts}).
 */
record ChildrenBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** An executor that completes every deterministic attempt at once: claim → complete only. */
  private static final class NoopExecutor implements StepExecutor {
    @Override
    public StepKind kind() {
      return StepKind.DETERMINISTIC;
    }

    @Override
    public StepOutcome execute(dev.flows.worker.StepExecution execution) {
      return new StepOutcome.Succeeded(JSON.nullNode());
    }
  }

  /**
   * Admits a backlog of one-step deterministic runs, then starts a worker of capacity {@code c}
   * with a no-op executor and answers steps/s until every run ended (worker start included).
   */
  private double drainBacklog(String url, PostgresJournal journal, int c) throws Exception {
    List<RunRef> runs = admitCommands(journal, plan.noopRuns());
    WorkerConfig config =
        WorkerConfig.defaults().toBuilder().capacity(c).stopGrace(Engines.STOP_GRACE).build();
    long t0 = System.nanoTime();
    try (Worker w =
        new Worker(
            journal, ExecutorRegistry.of(new NoopExecutor()), config, InstantSource.system())) {
      w.start();
      awaitEnded(url, runs);
    }
    return runs.size() / ((System.nanoTime() - t0) / 1e9);
  }

  @Override
  public void run() throws Exception {
    log("deterministic no-op steps");
    String url = pg.fresh("bench_noop", true);
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      for (int c : plan.concurrencies()) {
        // Warm-up: the same backlog drained by a worker of its own, unmeasured, until the JIT has
        // compiled the worker's path (compiled code is the JVM's, not one worker's; without this
        // the section measured the interpreter: a no-op attempt took ~3 ms between its claim and
        // its completion at c=1).
        warmUp(plan.warmupSeconds(), () -> drainBacklog(url, journal, c));
        List<Double> rates = new ArrayList<>();
        for (int r = 0; r < Runs.STEP_ROUNDS; r++) {
          rates.add(drainBacklog(url, journal, c));
        }
        double rate = rates.stream().sorted().toList().get(Runs.STEP_ROUNDS / 2);
        // The same backlog drained through the journal alone (after one unmeasured drain).
        JournalFloor.noopAttempts(journal, admitCommands(journal, plan.noopRuns()), c);
        JournalFloor.NoopAttempts alone =
            JournalFloor.noopAttempts(journal, admitCommands(journal, plan.noopRuns()), c);
        report.noop(c, rate, alone);
        log(
            "  c="
                + c
                + " "
                + (int) rate
                + " steps/s (rounds "
                + rates
                + "); the journal alone "
                + (int) alone.perSecond()
                + " steps/s");
      }
    }
    pg.drop("bench_noop");
  }
}
