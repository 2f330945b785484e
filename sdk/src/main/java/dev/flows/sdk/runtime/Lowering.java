package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.llm.ModelPrices;
import dev.flows.kernel.llm.SpendLimit;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.FlowHeader;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How the authoring surface lowers to the kernel's closed vocabulary: a flow is a root run with one
 * {@code agent} step (instruction type {@code flow}); each {@code f.mcp} call is a child run with
 * one {@code agent} step (type {@code mcp}, surface {@code /mcp/<server>/<tool>}); each {@code
 * f.run} is a child run with one {@code deterministic} step. No new step kind. The agent steps'
 * instructions are the kernel's records ({@link FlowBodyInstruction}, {@link McpCallInstruction}),
 * which own their JSON form.
 */
public final class Lowering {
  public static final String ROOT_STEP = "body";
  public static final String CALL_STEP = "call";
  public static final String MEMO_SURFACES = "/memo/*";
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private Lowering() {}

  public static RunSpec root(
      FlowHeader header,
      FlowBodyInstruction.Origin origin,
      JsonNode input,
      Inventory inventory,
      SdkConfig config) {
    return root(
        header,
        origin,
        input,
        inventory,
        header.budget().map(Budgets::limit),
        ModelPrices.none(),
        config);
  }

  /**
   * A root run that may spend {@code budget} (its children's model calls included) and prices its
   * model calls at {@code prices} (frozen into the run, and handed on to its child flows).
   */
  public static RunSpec root(
      FlowHeader header,
      FlowBodyInstruction.Origin origin,
      JsonNode input,
      Inventory inventory,
      Optional<SpendLimit> budget,
      ModelPrices prices,
      SdkConfig config) {
    FlowBodyInstruction instruction =
        FlowBodyInstruction.of(header.name(), header.version(), origin, inventory.json())
            .spending(budget, prices);
    StepSpec body =
        new StepSpec(
            ROOT_STEP,
            List.of(),
            input,
            config.rootMaxIterations(),
            BackoffPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(instruction.toJson(), RecoveryMode.INSPECT, List.of(MEMO_SURFACES)));
    return new RunSpec(RunSpec.VERSION, header.name(), List.of(body));
  }

  /** The narrower route of a class-path flow's body: {@code <name>@<version>}. */
  public static String classRoute(FlowHeader header) {
    return FlowBodyInstruction.classRoute(header.name(), header.version());
  }

  /** The directory a root body's commands run in: its flow file's, when it has one. */
  public static Optional<String> commandDir(JsonNode rootInstruction) {
    return FlowBodyInstruction.fromJson(rootInstruction).commandDir();
  }

  public static String mcpSurface(String server, String tool) {
    return McpCallInstruction.surface(server, tool);
  }

  public static RunSpec mcpCall(
      String flowName,
      String server,
      String tool,
      JsonNode args,
      JsonNode connection,
      boolean mayReperform,
      SdkConfig config) {
    return mcpCall(
        flowName, server, tool, args, connection, mayReperform, CallPolicy.DEFAULT, config);
  }

  /**
   * An MCP call with {@code policy}: its timeout lowers to the step's {@code timeoutMs}, its retry
   * policy to {@code maxIterations} and {@code retry} (and its {@code doNotRetry} to the
   * instruction's), its {@code onUnknownOutcome} and {@code tasks} to the instruction's. A default
   * policy writes exactly what a call without one does.
   */
  public static RunSpec mcpCall(
      String flowName,
      String server,
      String tool,
      JsonNode args,
      JsonNode connection,
      boolean mayReperform,
      CallPolicy policy,
      SdkConfig config) {
    return mcpCall(
        flowName,
        server,
        tool,
        args,
        connection,
        mayReperform,
        policy,
        false,
        List.of(),
        List.of(),
        config);
  }

  /**
   * As above; the call parked for approval before it is sent when {@code approval}; {@code
   * secretResult}: the result parts (JSON pointers) the worker seals before journaling the answer
   * ({@code args} arrive with their secrets sealed); {@code secretKeyEnvs}: the variables naming
   * the run's keys.
   */
  public static RunSpec mcpCall(
      String flowName,
      String server,
      String tool,
      JsonNode args,
      JsonNode connection,
      boolean mayReperform,
      CallPolicy policy,
      boolean approval,
      List<String> secretResult,
      List<String> secretKeyEnvs,
      SdkConfig config) {
    McpCallInstruction plain =
        new McpCallInstruction(
            server,
            tool,
            args,
            connection,
            mayReperform,
            policy
                .onUnknownOutcome()
                .map(o -> McpCallInstruction.OnUnknownOutcome.valueOf(o.name())),
            policy.retry().map(dev.flows.sdk.RetryPolicy::notRetried),
            policy.tasks().map(t -> McpCallInstruction.TaskUse.valueOf(t.name())),
            false,
            secretResult,
            secretKeyEnvs);
    McpCallInstruction instruction = approval ? plain.withApproval() : plain;
    StepSpec call =
        new StepSpec(
            CALL_STEP,
            List.of(),
            args,
            policy
                .retry()
                .map(dev.flows.sdk.RetryPolicy::maxAttempts)
                .orElse(config.mcpMaxIterations()),
            policy.retry().map(Lowering::backoff).orElse(BackoffPolicy.defaults()),
            OptionalLong.empty(),
            timeoutMs(policy),
            new StepBody.Agent(
                instruction.toJson(), RecoveryMode.INSPECT, List.of(instruction.surface())));
    return new RunSpec(RunSpec.VERSION, flowName + ":mcp:" + server + "/" + tool, List.of(call));
  }

  public static RunSpec command(
      String flowName, List<String> argv, boolean shell, SdkConfig config) {
    return command(flowName, argv, shell, Optional.empty(), config);
  }

  /** A command child run that runs in {@code dir} when given (else the worker's directory). */
  public static RunSpec command(
      String flowName, List<String> argv, boolean shell, Optional<String> dir, SdkConfig config) {
    return command(flowName, argv, shell, dir, CallPolicy.DEFAULT, config);
  }

  /**
   * A command child run with {@code policy}: its timeout lowers to the step's {@code timeoutMs},
   * its retry policy to {@code maxIterations} and {@code retry}.
   *
   * @throws FlowsException {@code invalid_input} for a retry policy naming {@code doNotRetry}: a
   *     command's failures are all retried
   */
  public static RunSpec command(
      String flowName,
      List<String> argv,
      boolean shell,
      Optional<String> dir,
      CallPolicy policy,
      SdkConfig config) {
    if (policy.retry().filter(r -> !r.notRetried().isEmpty()).isPresent()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "f.command/f.shell retry every failure; doNotRetry applies to f.step and MCP calls",
          "flow " + flowName,
          "drop doNotRetry from the command's retry policy");
    }
    StepSpec step =
        new StepSpec(
            CALL_STEP,
            List.of(),
            JSON.nullNode(),
            policy
                .retry()
                .map(dev.flows.sdk.RetryPolicy::maxAttempts)
                .orElse(config.commandMaxIterations()),
            policy.retry().map(Lowering::backoff).orElse(BackoffPolicy.defaults()),
            OptionalLong.empty(),
            timeoutMs(policy),
            new StepBody.Deterministic(argv, shell, dir));
    return new RunSpec(RunSpec.VERSION, flowName + ":run", List.of(step));
  }

  /** The kernel's backoff for {@code p}, with the kernel's default jitter. */
  static BackoffPolicy backoff(dev.flows.sdk.RetryPolicy p) {
    return new BackoffPolicy(
        p.initialBackoff().toMillis(),
        p.maxBackoff().toMillis(),
        p.multiplier(),
        BackoffPolicy.DEFAULT_JITTER_PERCENT);
  }

  private static OptionalLong timeoutMs(CallPolicy policy) {
    return policy
        .timeout()
        .map(d -> OptionalLong.of(Math.max(1, d.toMillis())))
        .orElse(OptionalLong.empty());
  }

  /** A child's id: derived from the root and the call's position, so a replay finds it. */
  public static RunRef childId(RunRef root, int position) {
    return Keys.childRunId(root, "call/" + position);
  }

  /**
   * The child of attempt {@code attempt} of a call with a retry policy: the first is the position's
   * child, each next one derived from the position and its number.
   */
  static RunRef childId(RunRef root, int position, int attempt) {
    return attempt == 1
        ? childId(root, position)
        : Keys.childRunId(root, "call/" + position + "/attempt/" + attempt);
  }
}
