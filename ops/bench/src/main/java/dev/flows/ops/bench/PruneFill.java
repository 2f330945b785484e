package dev.flows.ops.bench;

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
 * The prune section's fill at run scale: {@code runs} copies ({@link GrowthFill}) of real ended
 * runs the engine made, shaped as the growth section's ({@link GrowthTemplates#LONG_SHARE}: one in
 * ten of {@link GrowthTemplates#TEMPLATE_STEPS} f.steps, the rest of one), every copy's times moved
 * 40 days back so retention (30 days) takes them all. Ids {@code old-1..old-N} and {@code
 * old-l1..old-lN}, all starting as the entry fill's.
 */
final class PruneFill {
  /** Sets the runs to prune (copies of a real run) instead of the plan's synthetic entries. */
  static final String RUNS_ENV = "FLOWS_BENCH_PRUNE_RUNS";

  private PruneFill() {}

  /** Runs the full plan prunes (the figure of a million runs). */
  static final long FULL_RUNS = 1_000_000;

  /**
   * The runs {@link #RUNS_ENV} asks for, else {@link #FULL_RUNS} in a full run; empty to fill with
   * the plan's entries instead.
   */
  static Optional<Long> runs(String mode) {
    return Optional.ofNullable(System.getenv(RUNS_ENV))
        .map(Long::parseLong)
        .or(() -> mode.equals("full") ? Optional.of(FULL_RUNS) : Optional.empty());
  }

  /** Writes the copies; answers the journal entries they hold. */
  static long fill(String url, long runs) throws Exception {
    RunRef template;
    RunRef short1;
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = Engines.engine(journal, 1, WorkerConfig.DEFAULT_LEASE)) {
      engine.startWorker();
      template =
          GrowthBench.admit(
              engine, BenchFlows.STEPS, stepsInput("template", GrowthTemplates.TEMPLATE_STEPS));
      short1 = GrowthBench.admit(engine, BenchFlows.STEPS, stepsInput("template-1", 1));
      awaitEnded(url, List.of(template, short1), Optional.of(journal));
    }
    long longRuns = runs / GrowthTemplates.LONG_SHARE;
    GrowthFill.copies(
        url,
        List.of(
            new GrowthFill.Copies(template.value(), "old-l", longRuns),
            new GrowthFill.Copies(short1.value(), "old-", runs - longRuns)));
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      // Only the run's own times decide retention; its entries keep theirs (they are not read).
      // The template is aged too: it ended now, and retention takes it with its copies.
      s.execute(
          "UPDATE flows.runs SET created_at = created_at - interval '40 days',"
              + " completed_at = completed_at - interval '40 days'"
              + " WHERE run_id LIKE 'old-%' OR run_id IN ('"
              + template.value()
              + "', '"
              + short1.value()
              + "')");
    }
    GrowthFill.analyze(url);
    return Runs.count(url, "SELECT count(*) FROM flows.journal_entries WHERE run_id LIKE 'old-%'");
  }
}
