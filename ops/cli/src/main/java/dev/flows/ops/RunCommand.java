package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartedRun;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.PreflightException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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

  @Mixin RunStartFlags start = new RunStartFlags();

  private final Session s;

  RunCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() throws InterruptedException {
    JsonNode in = EngineSupport.input(input);
    Path here = Path.of("").toAbsolutePath();
    if (start.key != null) {
      Optional<RunSnapshot> ended = EndedRunByKey.find(s, flow, here, start.key, in);
      if (ended.isPresent()) {
        RunSnapshot run = ended.get();
        announce(s, run.runId(), false, run.name(), Optional.empty());
        RunsCommand.emitEnd(s, s.commandJournal(), run, "run.end", start.full());
        return RunsCommand.exitFor(run.status());
      }
    }
    LoadedFlow loaded = LoadedFlow.load(flow, here);
    Journal journal = s.journal(EngineSupport.poolFor(start.capacity));
    return startAndFollow(s, journal, loaded, in, start, Optional.empty());
  }

  /**
   * Preflights and admits the flow (a rerun of {@code rerunOf} when given), then follows it with an
   * in-process worker until it ends or parks, unless {@code detach}. Answers the exit code.
   */
  static int startAndFollow(
      Session s,
      Journal journal,
      LoadedFlow loaded,
      JsonNode in,
      RunStartFlags options,
      Optional<RunRef> rerunOf)
      throws InterruptedException {
    // Telemetry is closed last, so the spans of the engine's last attempts are exported.
    try (OpsTelemetry telemetry = EngineSupport.telemetry(s);
        FlowsEngine engine =
            EngineSupport.engine(
                journal, options.capacity, McpCredentials.fromEnvironment(), s.limits())) {
      StartedRun started;
      try {
        started = engine.start(loaded, in, options.admissionKey(), rerunOf);
      } catch (PreflightException e) {
        return EngineSupport.refusePreflight(s, e);
      }
      RunRef id = started.runId();
      announce(s, id, started.created(), loaded.flow().header().name(), rerunOf);
      if (options.detach) {
        s.notice(
            "detached; a `flows worker` will run it. Follow it with `flows runs watch "
                + id.value()
                + "`");
        return Exit.SUCCESS;
      }
      // The run is in its flow's queue: the in-process worker serves that one.
      engine.serveQueues(java.util.Set.of(loaded.flow().header().queue()));
      engine.startWorker();
      RunSnapshot end = new RunFollower(s, engine.journal(), id, options.full()).untilSettled();
      RunsCommand.emitEnd(s, engine.journal(), end, "run.end", options.full());
      return RunsCommand.exitFor(end.status());
    }
  }

  /** The first line of a start: the run started, or found under its key. */
  private static void announce(
      Session s, RunRef id, boolean created, String name, Optional<RunRef> rerunOf) {
    ObjectNode ev = s.object();
    ev.put("type", "run.started").put("run", id.value()).put("created", created);
    ev.put("flow", name);
    rerunOf.ifPresent(old -> ev.put("rerunOf", old.value()));
    s.event(
        ev,
        (created ? "started run " : "found run ")
            + id.value()
            + " (flow "
            + name
            + rerunOf.map(old -> ", rerun of " + old.value()).orElse("")
            + ")");
  }
}
