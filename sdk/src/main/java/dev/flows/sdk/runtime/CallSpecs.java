package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.keys.SecretKeys;
import dev.flows.kernel.keys.SecretMarks;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.McpResult;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The child run specs of a body's MCP and command calls, checked against the header and the
 * inventory the run was admitted with. A call's secret arguments (flows.json's marks for the tool,
 * frozen in the inventory, and the call's own) are sealed under {@code keys} here, before its spec
 * exists; its secret result parts go to the worker to seal, and come back opened in the body's
 * {@link McpResult}.
 */
record CallSpecs(
    FlowHeader header,
    Inventory inventory,
    SdkConfig config,
    JsonNode rootInstruction,
    SecretKeys keys) {
  private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER = DurableCtx.MAPPER;

  RunSpec mcp(
      String server,
      String tool,
      Object args,
      CallPolicy policy,
      boolean approval,
      SecretMarks own) {
    if (!inventory.hasTool(server, tool)) {
      throw new FlowsException(
          ErrorCode.MCP_UNKNOWN_TOOL,
          "server '%s' has no tool '%s' (tools: %s)"
              .formatted(server, tool, inventory.tools(server)),
          "flow " + header.name(),
          "call one of the server's tools; `flows mcp tools " + server + "` lists them");
    }
    JsonNode argsJson = MAPPER.valueToTree(args == null ? Map.of() : args);
    if (!argsJson.isObject()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "tool arguments must be a JSON object, got " + argsJson.getNodeType(),
          server + "/" + tool,
          "pass a Map, a record or an ObjectNode");
    }
    SecretMarks marks = inventory.secrets(server, tool).and(own);
    List<String> keyEnvs = marks.isEmpty() ? List.of() : inventory.secretKeyEnvs(server);
    return Lowering.mcpCall(
        header.name(),
        server,
        tool,
        keys.seal(argsJson, marks.arguments(), keyEnvs, Lowering.mcpSurface(server, tool)),
        inventory.connection(server).orElseThrow(),
        inventory.mayReperform(server, tool),
        policy.tasks().isPresent()
            ? policy
            : inventory.tasks(server).map(policy::withTasks).orElse(policy),
        approval,
        marks.result(),
        keyEnvs,
        config);
  }

  /** The body's view of a call's receipt: its sealed secrets opened, in memory only. */
  McpResult result(JsonNode receipt) {
    String server = receipt.path("server").asText();
    return new McpResult(
        keys.open(
            receipt,
            inventory.secretKeyEnvs(server),
            Lowering.mcpSurface(server, receipt.path("tool").asText())));
  }

  RunSpec command(List<String> argv, boolean shell, CallPolicy policy) {
    if (argv.isEmpty()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT, "f.run needs a command", header.name(), "pass argv");
    }
    // A single-file flow's commands run in its file's directory, recorded when it was admitted.
    Optional<String> dir = Lowering.commandDir(rootInstruction);
    return Lowering.command(header.name(), argv, shell, dir, policy, config);
  }
}
