package dev.flows.ops.bench;

import static dev.flows.ops.bench.Runs.awaitEnded;
import static dev.flows.ops.bench.Runs.stepsInput;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.runtime.FlowsEngine;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The growth section's fill: four real runs made by the engine (ended runs of 1 and of 10 f.steps,
 * a run asleep on a timer due in a day, a run awaiting a signal for up to a day), then {@link
 * GrowthFill} copies of them: the ended runs, one in {@link #LONG_SHARE} of 10 steps and the rest
 * of 1 (a 10-step run holds 15 KB with its indexes, a 1-step run 5 KB: ten million of the first
 * would not fit this machine's disk), and the waiting runs half asleep, half awaiting a signal.
 */
final class GrowthTemplates {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final int TEMPLATE_STEPS = 10;

  /** One ended run in this many is a copy of the 10-step run, the others of the 1-step run. */
  static final int LONG_SHARE = 10;

  private GrowthTemplates() {}

  static void fill(
      String url, GrowthBench.Size size, Function<PostgresJournal, FlowsEngine> engines)
      throws Exception {
    RunRef ended;
    RunRef short1;
    RunRef asleep;
    RunRef awaiting;
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = engines.apply(journal)) {
      engine.startWorker();
      ended = GrowthBench.admit(engine, BenchFlows.STEPS, stepsInput("template", TEMPLATE_STEPS));
      short1 = GrowthBench.admit(engine, BenchFlows.STEPS, stepsInput("template-1", 1));
      Instant due = Instant.now().plus(Duration.ofDays(1));
      asleep =
          GrowthBench.admit(
              engine,
              GrowthFlows.NAP,
              JSON.objectNode().put("id", "template-nap").put("until", due.toString()));
      awaiting =
          GrowthBench.admit(
              engine, GrowthFlows.WAITER, JSON.objectNode().put("id", "template-waiter"));
      awaitEnded(url, List.of(ended, short1), Optional.of(journal));
      GrowthBench.awaitWaiting(url, List.of(asleep, awaiting));
    }
    long longRuns = size.ended() / LONG_SHARE;
    GrowthFill.copies(
        url,
        List.of(
            new GrowthFill.Copies(ended.value(), "ge-", longRuns, true),
            new GrowthFill.Copies(short1.value(), "g1-", size.ended() - longRuns, true),
            new GrowthFill.Copies(asleep.value(), "gn-", size.waiting() / 2, true),
            new GrowthFill.Copies(
                awaiting.value(), "gw-", size.waiting() - size.waiting() / 2, true)));
    GrowthFill.analyze(url);
  }
}
