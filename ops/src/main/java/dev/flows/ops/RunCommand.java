package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.PreflightException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flows run}: preflight, admit, and (unless detached) run it here with progress lines. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description =
        "Preflight and start a flow, then run it with an in-process worker (or leave it to `flows"
            + " worker` with --detach). Exit 0 succeeded, 1 failed, 2 refused, 3 parked.")
final class RunCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FLOW", description = "NAME.flow.java, or a flow class.")
  String flow;

  @Option(names = "--input", paramLabel = "JSON", description = "The flow's input (default {}).")
  String input;

  @Option(
      names = "--key",
      paramLabel = "KEY",
      description = "Admission key: the same key starts the run once and finds it afterwards.")
  String key;

  @Option(names = "--detach", description = "Start the run and return; a `flows worker` runs it.")
  boolean detach;

  @Option(
      names = "--capacity",
      paramLabel = "N",
      description = "Attempts the in-process worker runs at once (default 16).")
  int capacity = 16;

  private final Session s;

  RunCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() throws InterruptedException {
    JsonNode in = EngineSupport.input(input);
    LoadedFlow loaded = LoadedFlow.load(flow, Path.of("").toAbsolutePath());
    Journal journal = s.journal(EngineSupport.poolFor(capacity));
    try (FlowsEngine engine = EngineSupport.engine(journal, capacity)) {
      StartedRun started;
      try {
        started = engine.start(loaded, in, Optional.ofNullable(key));
      } catch (PreflightException e) {
        return EngineSupport.refusePreflight(s, e);
      }
      RunId id = started.runId();
      ObjectNode ev = s.object();
      ev.put("type", "run.started").put("run", id.value()).put("created", started.created());
      ev.put("flow", loaded.flow().header().name());
      s.event(
          ev,
          (started.created() ? "started run " : "found run ")
              + id.value()
              + " (flow "
              + loaded.flow().header().name()
              + ")");
      if (detach) {
        s.notice(
            "detached; a `flows worker` will run it. Follow it with `flows runs watch "
                + id.value()
                + "`");
        return Exit.SUCCESS;
      }
      // The run is in its flow's queue: the in-process worker serves that one.
      engine.serveQueues(java.util.Set.of(loaded.flow().header().queue()));
      engine.startWorker();
      RunSnapshot end = new RunFollower(s, engine.journal(), id).untilSettled();
      ObjectNode done = s.object();
      done.put("type", "run.end");
      done.set("run", RunView.summary(end));
      end.steps().getFirst().output().ifPresent(o -> done.set("output", o));
      s.event(
          done,
          "run "
              + id.value()
              + " "
              + end.status().wire()
              + end.steps().getFirst().output().map(o -> "; output " + o).orElse("")
              + (end.status() == RunStatus.PARKED
                  ? "; an operator decides: `flows runs show " + id.value() + "`"
                  : ""));
      return RunsCommand.exitFor(end.status());
    }
  }
}
