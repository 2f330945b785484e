package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;

/**
 * The one shape of a confirmed MCP call's result: the receipt {@code {type:"mcp", server, tool,
 * input, output, idempotencyKey}} whose {@code output} is the tool's result as the server reported
 * it, {@code {content, structuredContent?, isError}}. The MCP executor builds it for a call it
 * made, and both journals build it for a call an operator resolved as performed, so a flow reads
 * the same {@code McpResult} either way.
 */
public final class McpReceipt {
  /** The instruction type of an MCP call step, and the receipt's {@code type}. */
  public static final String TYPE = McpCallInstruction.TYPE;

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Set<String> RESULT_FIELDS =
      Set.of("content", "structuredContent", "isError", "_meta");

  private McpReceipt() {}

  public static ObjectNode of(
      String server, String tool, JsonNode input, JsonNode output, String idempotencyKey) {
    ObjectNode r = JSON.objectNode().put("type", TYPE).put("server", server).put("tool", tool);
    r.set("input", input);
    r.set("output", output);
    r.put("idempotencyKey", idempotencyKey);
    return r;
  }

  /**
   * Adds to a receipt how the call went on the wire: {@code protocolVersion} (the revision that
   * answered) and, when a request had to be re-issued, {@code wireAttempts} ({@code requestId},
   * {@code protocolVersion}, {@code resentBecause}). Nothing is added when the client knows
   * neither.
   */
  public static ObjectNode withWire(ObjectNode receipt, ToolCallResult result) {
    if (!result.protocolVersion().isEmpty()) {
      receipt.put("protocolVersion", result.protocolVersion());
    }
    if (result.wireAttempts().size() > 1) {
      var attempts = receipt.putArray("wireAttempts");
      for (ToolCallResult.WireAttempt a : result.wireAttempts()) {
        ObjectNode n =
            attempts
                .addObject()
                .put("requestId", a.requestId())
                .put("protocolVersion", a.protocolVersion());
        a.resentBecause().ifPresent(r -> n.put("resentBecause", r));
      }
    }
    return receipt;
  }

  /** The receipt's {@code output} for a tool's answer. */
  public static ObjectNode output(ToolCallResult result) {
    return output(result.content(), result.structuredContent(), result.isError());
  }

  private static ObjectNode output(
      JsonNode content, Optional<JsonNode> structuredContent, boolean isError) {
    ObjectNode output = JSON.objectNode();
    output.set("content", content);
    structuredContent.ifPresent(s -> output.set("structuredContent", s));
    output.put("isError", isError);
    return output;
  }

  /** True for a step that calls an MCP tool (an agent step whose instruction type is mcp). */
  public static boolean isCall(StepSpec step) {
    return step.body() instanceof StepBody.Agent a && TYPE.equals(a.instructionType());
  }

  /**
   * The receipt of an MCP call step that an operator says was performed with {@code result}: the
   * tool's result as the server reports it ({@code {"content":[…], "structuredContent":{…},
   * "isError":false}}), or a bare JSON object of another shape, taken as its structured content.
   * The server, tool and input are the step's instruction's; the key is the step's.
   */
  public static ObjectNode resolved(
      StepSpec step, String idempotencyKey, JsonNode result, String place) {
    McpCallInstruction call = McpCallInstruction.of((StepBody.Agent) step.body());
    return of(call.server(), call.tool(), call.input(), toolResult(result, place), idempotencyKey);
  }

  private static ObjectNode toolResult(JsonNode result, String place) {
    if (!result.isObject()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "the result of an MCP call is a JSON object, not " + result.getNodeType(),
          place,
          "pass the tool's result {\"content\":[…],\"structuredContent\":{…},\"isError\":false},"
              + " or its structured content as a JSON object");
    }
    if (!isToolResult(result)) {
      ObjectNode text = JSON.objectNode().put("type", "text").put("text", result.toString());
      return output(JSON.arrayNode().add(text), Optional.of(result.deepCopy()), false);
    }
    if (result.path("isError").asBoolean(false)) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a result with isError true is a failed call, not a performed one",
          place,
          "pass the result of a call that succeeded, or resolve with --not-performed to send it"
              + " again");
    }
    JsonNode structured = result.path("structuredContent");
    return output(
        result.get("content").deepCopy(),
        structured.isMissingNode() || structured.isNull()
            ? Optional.empty()
            : Optional.of(structured.deepCopy()),
        false);
  }

  /** The server's own result shape: a content array and nothing but the result's fields. */
  private static boolean isToolResult(JsonNode result) {
    if (!result.path("content").isArray()) {
      return false;
    }
    if (result.has("isError") && !result.get("isError").isBoolean()) {
      return false;
    }
    for (Iterator<String> it = result.fieldNames(); it.hasNext(); ) {
      if (!RESULT_FIELDS.contains(it.next())) {
        return false;
      }
    }
    return true;
  }
}
