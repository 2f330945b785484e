package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RetryPolicy;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.sdk.FlowHeader;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How the authoring surface lowers to the kernel's closed vocabulary: a flow is a root run with one
 * {@code agent} step (instruction type {@code flow}); each {@code f.mcp} call is a child run with
 * one {@code agent} step (type {@code mcp}, surface {@code /mcp/<server>/<tool>}); each {@code
 * f.run} is a child run with one {@code deterministic} step. No new step kind.
 */
public final class Lowering {
  public static final String ROOT_STEP = "body";
  public static final String CALL_STEP = "call";
  public static final String FLOW_TYPE = "flow";
  public static final String MCP_TYPE = "mcp";
  public static final String MEMO_SURFACES = "/memo/*";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private Lowering() {}

  /** The narrower route of every single-file flow's body starts with this. */
  public static final String SOURCE_ROUTE = "source:";

  /** Where the flow's code comes from: a registered class, or source carried in the journal. */
  public sealed interface Origin {
    record ClassFlow(String className) implements Origin {}

    /**
     * A single-file flow: its source, the source's sha256 and, when read from a file, the file's
     * directory (absolute), where its {@code f.sh} / {@code f.run} commands run, and the file
     * itself (absolute), so the run can be started again.
     */
    record SourceFlow(
        String className,
        String source,
        String sourceHash,
        Optional<String> dir,
        Optional<String> file)
        implements Origin {
      public SourceFlow(String className, String source, String sourceHash) {
        this(className, source, sourceHash, Optional.empty(), Optional.empty());
      }

      public SourceFlow(String className, String source, String sourceHash, Optional<String> dir) {
        this(className, source, sourceHash, dir, Optional.empty());
      }
    }
  }

  public static RunSpec root(
      FlowHeader header, Origin origin, JsonNode input, Inventory inventory, SdkConfig config) {
    ObjectNode instruction = JSON.objectNode();
    instruction.put("type", FLOW_TYPE).put("flow", header.name()).put("version", header.version());
    ObjectNode o = instruction.putObject("origin");
    switch (origin) {
      case Origin.ClassFlow c -> {
        o.put("kind", "class").put("className", c.className());
        // Only a worker that has this class at this version may claim the body.
        instruction.put("route", classRoute(header));
      }
      case Origin.SourceFlow s -> {
        o.put("kind", "source")
            .put("className", s.className())
            .put("sourceHash", s.sourceHash())
            .put("source", s.source());
        s.dir().ifPresent(d -> o.put("dir", d));
        s.file().ifPresent(f -> o.put("file", f));
        // Only a worker given this source (by hash) may claim the body.
        instruction.put("route", sourceRoute(s.sourceHash()));
      }
    }
    instruction.set("mcp", inventory.json());
    StepSpec body =
        new StepSpec(
            ROOT_STEP,
            List.of(),
            input,
            config.rootMaxIterations(),
            RetryPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(instruction, RecoveryMode.INSPECT, List.of(MEMO_SURFACES)));
    return new RunSpec(RunSpec.VERSION, header.name(), List.of(body));
  }

  /** The narrower route of a class-path flow's body: {@code <name>@<version>}. */
  public static String classRoute(FlowHeader header) {
    return header.name() + "@" + header.version();
  }

  /** The narrower route of a single-file flow's body: {@code source:<sha256 of the source>}. */
  public static String sourceRoute(String sourceHash) {
    return SOURCE_ROUTE + sourceHash;
  }

  /** The directory a root body's commands run in: its flow file's, when it has one. */
  public static Optional<String> commandDir(JsonNode rootInstruction) {
    JsonNode dir = rootInstruction.path("origin").path("dir");
    return dir.isTextual() ? Optional.of(dir.asText()) : Optional.empty();
  }

  public static String mcpSurface(String server, String tool) {
    return "/mcp/" + server + "/" + tool;
  }

  public static RunSpec mcpCall(
      String flowName,
      String server,
      String tool,
      JsonNode args,
      JsonNode connection,
      boolean mayReperform,
      SdkConfig config) {
    ObjectNode instruction = JSON.objectNode();
    instruction.put("type", MCP_TYPE).put("server", server).put("tool", tool);
    instruction.set("input", args);
    instruction.set("connection", connection);
    instruction.put("mayReperform", mayReperform);
    StepSpec call =
        new StepSpec(
            CALL_STEP,
            List.of(),
            args,
            config.mcpMaxIterations(),
            RetryPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(
                instruction, RecoveryMode.INSPECT, List.of(mcpSurface(server, tool))));
    return new RunSpec(RunSpec.VERSION, flowName + ":mcp:" + server + "/" + tool, List.of(call));
  }

  public static RunSpec command(
      String flowName, List<String> argv, boolean shell, SdkConfig config) {
    return command(flowName, argv, shell, Optional.empty(), config);
  }

  /** A command child run that runs in {@code dir} when given (else the worker's directory). */
  public static RunSpec command(
      String flowName, List<String> argv, boolean shell, Optional<String> dir, SdkConfig config) {
    StepSpec step =
        new StepSpec(
            CALL_STEP,
            List.of(),
            JSON.nullNode(),
            config.commandMaxIterations(),
            RetryPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Deterministic(argv, shell, dir));
    return new RunSpec(RunSpec.VERSION, flowName + ":run", List.of(step));
  }

  /** A child's id: derived from the root and the call's position, so a replay finds it. */
  public static RunId childId(RunId root, int position) {
    return Keys.childRunId(root, "call/" + position);
  }
}
