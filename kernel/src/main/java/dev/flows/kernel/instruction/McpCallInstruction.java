package dev.flows.kernel.instruction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.spec.StepBody;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One MCP tool call, the instruction of an {@code f.mcp} child run's step: call {@code tool} on
 * {@code server} (reached through {@code connection}, the server's non-secret config) with {@code
 * input}. {@code mayReperform}: what the tool's annotations and flows.json decide, a call whose
 * outcome is unknown may be sent again with the same key. The call's own policy, present only when
 * its author chose one: {@code onUnknownOutcome} overrides {@code mayReperform}; {@code doNotRetry}
 * (present when the call has an explicit retry policy) lists the diagnostics that are not retried,
 * and a timed-out call is retried only then; {@code tasks} (the call's or its server's choice)
 * whether the call may or must be made as a task, {@code automatic} when absent; {@code approval}
 * (written only when true) parks the call for approval before it is sent ({@link
 * dev.flows.kernel.journal.ToolApproval}). JSON: {@code {type:"mcp", server, tool, input,
 * connection, mayReperform, onUnknownOutcome?, doNotRetry?, tasks?, approval?, secretResult?,
 * secretKeyEnvs?}}; absent fields keep the bytes (and so the spec hash) of a call without a policy.
 * {@code secretResult}: JSON pointers into the receipt's {@code output} whose values the worker
 * seals ({@link dev.flows.kernel.keys.SecretKeys}) before anything of the answer is journaled; the
 * input's secret values arrive sealed already. {@code secretKeyEnvs}: the variables (names, never
 * keys) flows.json named for the run's keys, the first sealing.
 */
public record McpCallInstruction(
    String server,
    String tool,
    JsonNode input,
    JsonNode connection,
    boolean mayReperform,
    Optional<OnUnknownOutcome> onUnknownOutcome,
    Optional<List<String>> doNotRetry,
    Optional<TaskUse> tasks,
    boolean approval,
    List<String> secretResult,
    List<String> secretKeyEnvs)
    implements Instruction {
  /** The instruction type of an MCP call step. */
  public static final String TYPE = "mcp";

  private static final String SERVER = "server";
  private static final String TOOL = "tool";
  private static final String INPUT = "input";
  private static final String CONNECTION = "connection";
  private static final String MAY_REPERFORM = "mayReperform";
  private static final String ON_UNKNOWN_OUTCOME = "onUnknownOutcome";
  private static final String DO_NOT_RETRY = "doNotRetry";
  private static final String TASKS = "tasks";
  private static final String APPROVAL = "approval";
  private static final String SECRET_RESULT = "secretResult";
  private static final String SECRET_KEY_ENVS = "secretKeyEnvs";
  private static final String AT = "instruction";

  /** What a call of unknown outcome does when its author said so. */
  public enum OnUnknownOutcome {
    RETRY_WITH_KEY("retry_with_key"),
    PARK("park"),
    FAIL("fail");

    private final String wire;

    OnUnknownOutcome(String wire) {
      this.wire = wire;
    }

    public String wire() {
      return wire;
    }

    static Optional<OnUnknownOutcome> fromWire(String wire) {
      return Arrays.stream(values()).filter(v -> v.wire.equals(wire)).findFirst();
    }
  }

  /** Whether the call is made as a task (see {@link dev.flows.kernel.mcp.CallOptions.TaskMode}). */
  public enum TaskUse {
    AUTOMATIC("automatic", dev.flows.kernel.mcp.CallOptions.TaskMode.AUTOMATIC),
    REQUIRED("required", dev.flows.kernel.mcp.CallOptions.TaskMode.REQUIRED),
    FORBIDDEN("forbidden", dev.flows.kernel.mcp.CallOptions.TaskMode.FORBIDDEN);

    private final String wire;
    private final dev.flows.kernel.mcp.CallOptions.TaskMode mode;

    TaskUse(String wire, dev.flows.kernel.mcp.CallOptions.TaskMode mode) {
      this.wire = wire;
      this.mode = mode;
    }

    public String wire() {
      return wire;
    }

    public dev.flows.kernel.mcp.CallOptions.TaskMode mode() {
      return mode;
    }

    public static Optional<TaskUse> fromWire(String wire) {
      return Arrays.stream(values()).filter(v -> v.wire.equals(wire)).findFirst();
    }
  }

  public McpCallInstruction {
    Objects.requireNonNull(server, SERVER);
    Objects.requireNonNull(tool, TOOL);
    Objects.requireNonNull(input, INPUT);
    Objects.requireNonNull(connection, CONNECTION);
    Objects.requireNonNull(onUnknownOutcome, ON_UNKNOWN_OUTCOME);
    doNotRetry = doNotRetry.map(List::copyOf);
    Objects.requireNonNull(tasks, TASKS);
    secretResult = List.copyOf(secretResult);
    secretKeyEnvs = List.copyOf(secretKeyEnvs);
  }

  /** A call that needs no approval and whose result holds no secret. */
  public McpCallInstruction(
      String server,
      String tool,
      JsonNode input,
      JsonNode connection,
      boolean mayReperform,
      Optional<OnUnknownOutcome> onUnknownOutcome,
      Optional<List<String>> doNotRetry,
      Optional<TaskUse> tasks) {
    this(
        server,
        tool,
        input,
        connection,
        mayReperform,
        onUnknownOutcome,
        doNotRetry,
        tasks,
        false,
        List.of(),
        List.of());
  }

  /** This call parked for approval before it is sent ({@code approval} true). */
  public McpCallInstruction withApproval() {
    return new McpCallInstruction(
        server,
        tool,
        input,
        connection,
        mayReperform,
        onUnknownOutcome,
        doNotRetry,
        tasks,
        true,
        secretResult,
        secretKeyEnvs);
  }

  /** This call with {@code arguments} as its input (an approver's edit). */
  public McpCallInstruction withInput(JsonNode arguments) {
    return new McpCallInstruction(
        server,
        tool,
        arguments,
        connection,
        mayReperform,
        onUnknownOutcome,
        doNotRetry,
        tasks,
        approval,
        secretResult,
        secretKeyEnvs);
  }

  /** A call with a policy of its own and no task choice. */
  public McpCallInstruction(
      String server,
      String tool,
      JsonNode input,
      JsonNode connection,
      boolean mayReperform,
      Optional<OnUnknownOutcome> onUnknownOutcome,
      Optional<List<String>> doNotRetry) {
    this(
        server,
        tool,
        input,
        connection,
        mayReperform,
        onUnknownOutcome,
        doNotRetry,
        Optional.empty());
  }

  /**
   * How the call is made: as a task when the server and tool allow ({@code automatic}) by default.
   */
  public dev.flows.kernel.mcp.CallOptions.TaskMode taskMode() {
    return tasks.orElse(TaskUse.AUTOMATIC).mode();
  }

  /** A call without a policy of its own. */
  public McpCallInstruction(
      String server, String tool, JsonNode input, JsonNode connection, boolean mayReperform) {
    this(
        server,
        tool,
        input,
        connection,
        mayReperform,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  /**
   * Whether a call of unknown outcome is sent again with the same key: the author's {@code
   * onUnknownOutcome} when given, else {@code mayReperform}.
   */
  public boolean reperforms() {
    return onUnknownOutcome.map(o -> o == OnUnknownOutcome.RETRY_WITH_KEY).orElse(mayReperform);
  }

  /** Whether a call of unknown outcome that is not sent again fails (else it parks). */
  public boolean failsOnUnknownOutcome() {
    return onUnknownOutcome.filter(o -> o == OnUnknownOutcome.FAIL).isPresent();
  }

  /**
   * Whether a failure with diagnostic {@code diagnostic} that would be retried by default still is:
   * not when the call's retry policy names it; a {@code timeout} only under an explicit policy.
   */
  public boolean retries(String diagnostic) {
    if (diagnostic.equals("timeout")) {
      return doNotRetry.filter(l -> !l.contains(diagnostic)).isPresent();
    }
    return doNotRetry.map(l -> !l.contains(diagnostic)).orElse(true);
  }

  /**
   * The effect surface of a call of {@code tool} on {@code server}: {@code /mcp/<server>/<tool>}.
   */
  public static String surface(String server, String tool) {
    return "/mcp/" + server + "/" + tool;
  }

  /** This call's effect surface. */
  public String surface() {
    return surface(server, tool);
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public ObjectNode toJson() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put(Fields.TYPE, TYPE).put(SERVER, server).put(TOOL, tool);
    o.set(INPUT, input);
    o.set(CONNECTION, connection);
    o.put(MAY_REPERFORM, mayReperform);
    onUnknownOutcome.ifPresent(u -> o.put(ON_UNKNOWN_OUTCOME, u.wire()));
    doNotRetry.ifPresent(l -> l.forEach(o.putArray(DO_NOT_RETRY)::add));
    tasks.ifPresent(t -> o.put(TASKS, t.wire()));
    if (approval) {
      o.put(APPROVAL, true);
    }
    if (!secretResult.isEmpty()) {
      secretResult.forEach(o.putArray(SECRET_RESULT)::add);
    }
    if (!secretKeyEnvs.isEmpty()) {
      secretKeyEnvs.forEach(o.putArray(SECRET_KEY_ENVS)::add);
    }
    return o;
  }

  /**
   * The call {@code json} describes. Refused ({@code invalid_input}) when it is not an {@code mcp}
   * instruction or lacks a field; an absent {@code mayReperform} reads as false (never send again),
   * absent policy fields as no policy.
   */
  public static McpCallInstruction fromJson(JsonNode json) {
    Fields.expectType(json, TYPE);
    Optional<OnUnknownOutcome> onUnknown =
        Fields.optionalText(json, ON_UNKNOWN_OUTCOME, AT)
            .map(
                w ->
                    OnUnknownOutcome.fromWire(w)
                        .orElseThrow(
                            () ->
                                Fields.notOneOf(
                                    ON_UNKNOWN_OUTCOME,
                                    AT,
                                    Arrays.stream(OnUnknownOutcome.values())
                                        .map(OnUnknownOutcome::wire)
                                        .toList())));
    return new McpCallInstruction(
        Fields.text(json, SERVER, AT),
        Fields.text(json, TOOL, AT),
        Fields.present(json, INPUT, AT),
        Fields.object(json, CONNECTION, AT),
        Fields.optionalBoolean(json, MAY_REPERFORM, AT, false),
        onUnknown,
        Fields.optionalTexts(json, DO_NOT_RETRY, AT),
        Fields.optionalText(json, TASKS, AT)
            .map(
                w ->
                    TaskUse.fromWire(w)
                        .orElseThrow(
                            () ->
                                Fields.notOneOf(
                                    TASKS,
                                    AT,
                                    Arrays.stream(TaskUse.values()).map(TaskUse::wire).toList()))),
        Fields.optionalBoolean(json, APPROVAL, AT, false),
        Fields.optionalTexts(json, SECRET_RESULT, AT).orElse(List.of()),
        Fields.optionalTexts(json, SECRET_KEY_ENVS, AT).orElse(List.of()));
  }

  /** The call an agent step of type {@code mcp} makes; see {@link #fromJson}. */
  public static McpCallInstruction of(StepBody.Agent agent) {
    return fromJson(agent.instruction());
  }
}
