package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.awaitEnded;
import static dev.flows.ops.bench.Runs.stepsInput;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.worker.WorkerConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;

/**
 * The prune section's fill at run scale: {@code runs} copies ({@link GrowthFill}) of a real ended
 * run of {@link GrowthTemplates#TEMPLATE_STEPS} f.steps the engine made, every copy's times moved
 * 40 days back so retention (30 days) takes them all. Ids {@code old-1..old-N}, as the entry
 * fill's.
 */
final class PruneFill {
  /** Sets the runs to prune (copies of a real run) instead of the plan's synthetic entries. */
  static final String RUNS_ENV = "FLOWS_BENCH_PRUNE_RUNS";

  private PruneFill() {}

  /** The runs {@link #RUNS_ENV} asks for; empty to fill with the plan's entries instead. */
  static Optional<Long> runs() {
    return Optional.ofNullable(System.getenv(RUNS_ENV)).map(Long::parseLong);
  }

  /** Writes the copies; answers the journal entries they hold. */
  static long fill(String url, long runs) throws Exception {
    RunRef template;
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = Engines.engine(journal, 1, WorkerConfig.DEFAULT_LEASE)) {
      engine.startWorker();
      template =
          GrowthBench.admit(
              engine, BenchFlows.STEPS, stepsInput("template", GrowthTemplates.TEMPLATE_STEPS));
      awaitEnded(url, List.of(template), Optional.of(journal));
    }
    log("  copying " + runs + " ended runs");
    GrowthFill.copies(url, template.value(), "old-", runs);
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      // Only the run's own times decide retention; its entries keep theirs (they are not read).
      // The template is aged too: it ended now, and retention takes it with its copies.
      s.execute(
          "UPDATE flows.runs SET created_at = created_at - interval '40 days',"
              + " completed_at = completed_at - interval '40 days'"
              + " WHERE run_id LIKE 'old-%' OR run_id = '"
              + template.value()
              + "'");
    }
    GrowthFill.analyze(url);
    return Runs.count(url, "SELECT count(*) FROM flows.journal_entries WHERE run_id LIKE 'old-%'");
  }
}
