package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.sdk.Flow;
import dev.flows.sdk.compile.FlowSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the flow a body starts as a child ({@code f.flow(name)} or {@code f.flow(Type.class)}) and
 * lowers its run: a root-shaped run ({@link Lowering#root}) whose parent is the calling run. The
 * child's MCP servers are the calling run's frozen inventory's (the servers the child declares), so
 * a replay lowers the same run on any worker.
 */
final class ChildFlows {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final FlowResolver resolver;
  private final String parent;
  private final Optional<String> parentDir;
  private final dev.flows.kernel.llm.ModelPrices prices;

  ChildFlows(FlowResolver resolver, String parent, JsonNode rootInstruction) {
    this.resolver = resolver;
    this.parent = parent;
    this.parentDir = Lowering.commandDir(rootInstruction);
    this.prices = FlowBodyInstruction.fromJson(rootInstruction).prices();
  }

  /** A child flow: its code (for its header) and where the child's worker finds it. */
  record Target(Flow flow, FlowBodyInstruction.Origin origin) {
    String call() {
      return "f.flow(\"" + flow.header().name() + "\")";
    }
  }

  /**
   * {@code NAME.flow.java} beside the calling flow's file, else a flow class registered under
   * {@code name}, else {@code NAME.flow.java} under the worker's flow directories.
   */
  Target named(String name) {
    String file = name + FlowSource.SUFFIX;
    Optional<Path> beside =
        parentDir.map(d -> Path.of(d).resolve(file)).filter(Files::isRegularFile);
    if (beside.isPresent()) {
      return source(beside.get());
    }
    Optional<Flow> registered = resolver.registered(name);
    if (registered.isPresent()) {
      return new Target(
          registered.get(),
          new FlowBodyInstruction.Origin.ClassFlow(registered.get().getClass().getName()));
    }
    return resolver
        .sourceFile(file)
        .map(this::source)
        .orElseThrow(
            () ->
                new FlowsException(
                    ErrorCode.FLOW_NOT_FOUND,
                    "flow "
                        + parent
                        + " starts flow '"
                        + name
                        + "', which is neither a "
                        + file
                        + " beside it, a flow class registered with this worker, nor a file under"
                        + " its flow directories",
                    "f.flow(\"" + name + "\") in flow " + parent,
                    "put " + file + " beside the calling flow's file, or register the flow class"));
  }

  Target ofClass(Class<? extends Flow> type) {
    Flow flow = resolver.registerClass(type);
    return new Target(flow, new FlowBodyInstruction.Origin.ClassFlow(type.getName()));
  }

  private Target source(Path file) {
    FlowSource.Compiled c = resolver.compileAndAccept(file);
    return new Target(
        c.flow(),
        new FlowBodyInstruction.Origin.SourceFlow(
            c.className(),
            c.source(),
            c.sourceHash(),
            Optional.of(file.getParent().toString()),
            Optional.of(file.toString())));
  }

  /**
   * The child's run: its body with {@code input}, the servers it declares taken from {@code
   * inventory} (the calling run's).
   */
  RunSpec spec(Target target, JsonNode input, JsonNode inventory, SdkConfig config) {
    ObjectNode servers = JSON.objectNode();
    for (String s : target.flow().header().mcp()) {
      if (!inventory.has(s)) {
        throw new FlowsException(
            ErrorCode.MCP_UNDECLARED_SERVER,
            "child flow "
                + target.flow().header().name()
                + " declares server '"
                + s
                + "', which the calling flow "
                + parent
                + " does not",
            target.call() + " in flow " + parent,
            "add \"" + s + "\" to flow " + parent + "'s tools.mcp (preflight freezes it for both)");
      }
      servers.set(s, inventory.get(s));
    }
    // A child prices its calls as its root run does: at the prices frozen when the root started.
    dev.flows.sdk.FlowHeader h = target.flow().header();
    return Lowering.root(
        h,
        target.origin(),
        input,
        new Inventory(servers),
        h.budget().map(Budgets::limit),
        prices,
        config);
  }

  /** Whether journaled child run {@code s} is a run of the same flow with the same input. */
  static boolean same(RunSnapshot s, RunSpec spec) {
    JsonNode step = s.spec().path("steps").path(0);
    return s.spec().path("name").asText().equals(spec.name())
        && FlowBodyInstruction.TYPE.equals(
            step.path("agent").path("instruction").path("type").asText())
        && step.path("input").equals(spec.steps().getFirst().input());
  }
}
