package dev.flows.kernel.instruction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.spec.StepBody;
import java.util.Objects;

/**
 * One MCP tool call, the instruction of an {@code f.mcp} child run's step: call {@code tool} on
 * {@code server} (reached through {@code connection}, the server's non-secret config) with {@code
 * input}. {@code mayReperform}: a call whose outcome is unknown may be sent again with the same
 * key. JSON: {@code {type:"mcp", server, tool, input, connection, mayReperform}}.
 */
public record McpCallInstruction(
    String server, String tool, JsonNode input, JsonNode connection, boolean mayReperform)
    implements Instruction {
  /** The instruction type of an MCP call step. */
  public static final String TYPE = "mcp";

  private static final String SERVER = "server";
  private static final String TOOL = "tool";
  private static final String INPUT = "input";
  private static final String CONNECTION = "connection";
  private static final String MAY_REPERFORM = "mayReperform";
  private static final String AT = "instruction";

  public McpCallInstruction {
    Objects.requireNonNull(server, SERVER);
    Objects.requireNonNull(tool, TOOL);
    Objects.requireNonNull(input, INPUT);
    Objects.requireNonNull(connection, CONNECTION);
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
    return o;
  }

  /**
   * The call {@code json} describes. Refused ({@code invalid_input}) when it is not an {@code mcp}
   * instruction or lacks a field; an absent {@code mayReperform} reads as false (never send again).
   */
  public static McpCallInstruction fromJson(JsonNode json) {
    Fields.expectType(json, TYPE);
    return new McpCallInstruction(
        Fields.text(json, SERVER, AT),
        Fields.text(json, TOOL, AT),
        Fields.present(json, INPUT, AT),
        Fields.object(json, CONNECTION, AT),
        Fields.optionalBoolean(json, MAY_REPERFORM, AT, false));
  }

  /** The call an agent step of type {@code mcp} makes; see {@link #fromJson}. */
  public static McpCallInstruction of(StepBody.Agent agent) {
    return fromJson(agent.instruction());
  }
}
