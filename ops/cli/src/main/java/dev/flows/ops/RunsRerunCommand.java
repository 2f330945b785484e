package dev.flows.ops;

import static dev.flows.ops.RunsCommand.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.instruction.Instruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.sdk.runtime.LoadedFlow;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flows runs rerun}: an ended flow run started again as a new, linked run. */
@Command(
    name = "rerun",
    mixinStandardHelpOptions = true,
    description =
        "Start an ended flow run again as a new run: the same input under the current source"
            + " (--source FILE, else the flow file or class the run was started from), linked to"
            + " the old run. Then follow it as `flows run` does, unless --detach.")
final class Rerun implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "RUN", description = "The ended run to start again.")
  String run;

  @Option(
      names = "--source",
      paramLabel = "FILE",
      description = "The flow file to run (default: the file or class the run was started from).")
  String source;

  @Mixin RunStartFlags start = new RunStartFlags();

  private final Session s;

  Rerun(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() throws InterruptedException {
    RunRef id = runId(run);
    Journal journal = s.journal(EngineSupport.poolFor(start.capacity));
    Again again = again(journal, id, Optional.ofNullable(source));
    return RunCommand.startAndFollow(
        s, journal, again.flow(), again.input(), start, Optional.of(id));
  }

  /** What a rerun starts: the flow as loaded now and the old run's input. */
  record Again(LoadedFlow flow, JsonNode input) {}

  /**
   * The flow and input to start ended root run {@code id} again with: {@code source}, else the file
   * or class the run was started from. Refused as {@code runs rerun} documents; writes nothing.
   */
  static Again again(Journal journal, RunRef id, Optional<String> source) {
    RunSnapshot old = existing(journal, id);
    if (old.parentRunId().isPresent()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "run " + id.value() + " is a child run (one f.mcp / f.sh / f.run call of its flow)",
          id.value(),
          "rerun its root: `flows runs rerun " + old.parentRunId().get().value() + "`");
    }
    if (!old.status().terminal()) {
      throw new FlowsException(
          ErrorCode.RUN_NOT_ENDED,
          "run " + id.value() + " is " + old.status().wire() + "; only an ended run is rerun",
          id.value(),
          old.status() == RunStatus.PARKED
              ? parkedHint(journal, old) + ", or `flows runs cancel " + id.value() + "` first"
              : "wait for it to end (`flows runs watch "
                  + id.value()
                  + "`), or `flows runs cancel "
                  + id.value()
                  + "` first");
    }
    JsonNode body = old.spec().path("steps").path(0);
    Optional<Instruction> instruction =
        Instruction.fromJson(body.path("agent").path("instruction"));
    if (!(instruction.isPresent() && instruction.get() instanceof FlowBodyInstruction flowBody)) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "run " + id.value() + " is not a flow run (its spec was admitted directly)",
          id.value(),
          "admit its spec again through the journal API");
    }
    LoadedFlow loaded =
        LoadedFlow.load(flowSource(id, flowBody, source), Path.of("").toAbsolutePath());
    String name = flowBody.flow();
    if (!loaded.flow().header().name().equals(name)) {
      throw new FlowsException(
          ErrorCode.FLOW_INVALID,
          source.orElse("the run's source")
              + " is flow "
              + loaded.flow().header().name()
              + ", run "
              + id.value()
              + " ran flow "
              + name,
          source.isEmpty() ? id.value() : "--source",
          "pass the file of flow " + name + " with --source");
    }
    JsonNode input =
        body.path("input").isMissingNode() ? NullNode.getInstance() : body.get("input");
    return new Again(loaded, input);
  }

  /** {@code --source}, else the file or class the run was started from. */
  private static String flowSource(
      RunRef id, FlowBodyInstruction instruction, Optional<String> source) {
    if (source.isPresent()) {
      return source.get();
    }
    Optional<String> started =
        switch (instruction.origin()) {
          case FlowBodyInstruction.Origin.ClassFlow c -> Optional.of(c.className());
          case FlowBodyInstruction.Origin.SourceFlow f -> f.file();
        };
    if (started.isPresent()) {
      return started.get();
    }
    throw new FlowsException(
        ErrorCode.FLOW_NOT_FOUND,
        "run " + id.value() + " does not record the flow file it was started from",
        id.value(),
        "pass the flow file with --source FILE");
  }
}
