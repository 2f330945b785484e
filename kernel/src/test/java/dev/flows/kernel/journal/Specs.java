package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/** Builds run specs for journal tests without going through the JSON parser. */
public final class Specs {
  /** Backoff short enough that a retried step is claimable after a brief {@code elapse}. */
  public static final BackoffPolicy FAST_RETRY = new BackoffPolicy(1, 1, 1.0, 0);

  private Specs() {}

  public static StepSpec agent(String id, String... surfaces) {
    ObjectNode instruction = JsonNodeFactory.instance.objectNode().put("type", "test");
    return new StepSpec(
        id,
        List.of(),
        JsonNodeFactory.instance.nullNode(),
        1,
        FAST_RETRY,
        OptionalLong.empty(),
        OptionalLong.empty(),
        new StepBody.Agent(instruction, RecoveryMode.RESET, List.of(surfaces)));
  }

  /** An MCP call step, as the sdk lowers {@code f.mcp(server).tool(tool).call(input)}. */
  public static StepSpec mcpCall(String id, String server, String tool, JsonNode input) {
    return mcpCall(id, server, tool, input, Optional.empty());
  }

  /** As above, with the call's own {@code onUnknownOutcome} when given. */
  public static StepSpec mcpCall(
      String id,
      String server,
      String tool,
      JsonNode input,
      Optional<McpCallInstruction.OnUnknownOutcome> onUnknownOutcome) {
    McpCallInstruction call =
        new McpCallInstruction(
            server,
            tool,
            input,
            JsonNodeFactory.instance.objectNode().put("transport", "http").put("url", "http://x"),
            false,
            onUnknownOutcome,
            Optional.empty());
    return new StepSpec(
        id,
        List.of(),
        input,
        1,
        FAST_RETRY,
        OptionalLong.empty(),
        OptionalLong.empty(),
        new StepBody.Agent(call.toJson(), RecoveryMode.INSPECT, List.of(call.surface())));
  }

  public static StepSpec command(String id, String... argv) {
    return new StepSpec(
        id,
        List.of(),
        JsonNodeFactory.instance.nullNode(),
        1,
        FAST_RETRY,
        OptionalLong.empty(),
        OptionalLong.empty(),
        new StepBody.Deterministic(List.of(argv), false));
  }

  public static StepSpec llm(String id) {
    return new StepSpec(
        id,
        List.of(),
        JsonNodeFactory.instance.nullNode(),
        1,
        FAST_RETRY,
        OptionalLong.empty(),
        OptionalLong.empty(),
        new StepBody.Llm("say hi", ""));
  }

  public static StepSpec dependsOn(StepSpec s, String... deps) {
    return new StepSpec(
        s.id(),
        List.of(deps),
        s.input(),
        s.maxIterations(),
        s.retry(),
        s.leaseMs(),
        s.timeoutMs(),
        s.body());
  }

  public static StepSpec iterations(StepSpec s, int maxIterations) {
    return new StepSpec(
        s.id(),
        s.dependsOn(),
        s.input(),
        maxIterations,
        s.retry(),
        s.leaseMs(),
        s.timeoutMs(),
        s.body());
  }

  public static StepSpec lease(StepSpec s, Duration lease) {
    return new StepSpec(
        s.id(),
        s.dependsOn(),
        s.input(),
        s.maxIterations(),
        s.retry(),
        OptionalLong.of(lease.toMillis()),
        s.timeoutMs(),
        s.body());
  }

  public static StepSpec timeout(StepSpec s, Duration timeout) {
    return new StepSpec(
        s.id(),
        s.dependsOn(),
        s.input(),
        s.maxIterations(),
        s.retry(),
        s.leaseMs(),
        OptionalLong.of(timeout.toMillis()),
        s.body());
  }

  public static StepSpec retry(StepSpec s, BackoffPolicy retry) {
    return new StepSpec(
        s.id(),
        s.dependsOn(),
        s.input(),
        s.maxIterations(),
        retry,
        s.leaseMs(),
        s.timeoutMs(),
        s.body());
  }

  public static StepSpec input(StepSpec s, JsonNode input) {
    return new StepSpec(
        s.id(),
        s.dependsOn(),
        input,
        s.maxIterations(),
        s.retry(),
        s.leaseMs(),
        s.timeoutMs(),
        s.body());
  }

  public static RunSpec run(StepSpec... steps) {
    return new RunSpec(RunSpec.VERSION, "test", new ArrayList<>(List.of(steps)));
  }

  public static RunSpec named(String name, StepSpec... steps) {
    return new RunSpec(RunSpec.VERSION, name, List.of(steps));
  }
}
