package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.FlowHeader;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The child run specs of a body's MCP and command calls, checked against the header and the
 * inventory the run was admitted with.
 */
record CallSpecs(
    FlowHeader header, Inventory inventory, SdkConfig config, JsonNode rootInstruction) {
  private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER = DurableCtx.MAPPER;

  RunSpec mcp(String server, String tool, Object args, CallPolicy policy, boolean approval) {
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
    return Lowering.mcpCall(
        header.name(),
        server,
        tool,
        argsJson,
        inventory.connection(server).orElseThrow(),
        inventory.mayReperform(server, tool),
        policy.tasks().isPresent()
            ? policy
            : inventory.tasks(server).map(policy::withTasks).orElse(policy),
        approval,
        config);
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
