package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
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
 * The growth section's fill: three real runs made by the engine (an ended run of 10 f.steps, a run
 * asleep on a timer due in a day, a run awaiting a signal for up to a day), then {@link GrowthFill}
 * copies of them: the ended runs, and the waiting runs half asleep, half awaiting a signal.
 */
final class GrowthTemplates {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final int TEMPLATE_STEPS = 10;

  private GrowthTemplates() {}

  static void fill(
      String url, GrowthBench.Size size, Function<PostgresJournal, FlowsEngine> engines)
      throws Exception {
    RunRef ended;
    RunRef asleep;
    RunRef awaiting;
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = engines.apply(journal)) {
      engine.startWorker();
      ended = GrowthBench.admit(engine, BenchFlows.STEPS, stepsInput("template", TEMPLATE_STEPS));
      Instant due = Instant.now().plus(Duration.ofDays(1));
      asleep =
          GrowthBench.admit(
              engine,
              GrowthFlows.NAP,
              JSON.objectNode().put("id", "template-nap").put("until", due.toString()));
      awaiting =
          GrowthBench.admit(
              engine, GrowthFlows.WAITER, JSON.objectNode().put("id", "template-waiter"));
      awaitEnded(url, List.of(ended), Optional.of(journal));
      GrowthBench.awaitWaiting(url, List.of(asleep, awaiting));
    }
    log("  copying " + size.ended() + " ended runs");
    GrowthFill.copies(url, ended.value(), "ge-", size.ended());
    log("  copying " + size.waiting() + " waiting runs");
    GrowthFill.copies(url, asleep.value(), "gn-", size.waiting() / 2);
    GrowthFill.copies(url, awaiting.value(), "gw-", size.waiting() - size.waiting() / 2);
    GrowthFill.analyze(url);
  }
}
