package dev.flows.kernel.instruction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.spec.StepBody;
import java.util.Optional;

/**
 * The instruction of an agent step of a type flows itself lowers to: an MCP tool call ({@link
 * McpCallInstruction}, type {@code mcp}) or a flow's body ({@link FlowBodyInstruction}, type {@code
 * flow}). Each record owns its JSON form: {@link #toJson} writes the tree a spec carries and its
 * {@code fromJson} reads it back, refusing a malformed tree with {@code invalid_input} naming the
 * field. Agent steps of other types keep their instruction as free JSON.
 */
public sealed interface Instruction permits McpCallInstruction, FlowBodyInstruction {
  /** The instruction's {@code type}: the agent executor that serves it. */
  String type();

  /** The JSON form a step spec carries, field for field as flows has always written it. */
  ObjectNode toJson();

  /**
   * The typed instruction of {@code json} when its type is one flows lowers to; empty for any other
   * type. A tree of a known type that lacks a field is refused ({@code invalid_input}).
   */
  static Optional<Instruction> fromJson(JsonNode json) {
    return switch (json.path(Fields.TYPE).asText()) {
      case McpCallInstruction.TYPE -> Optional.of(McpCallInstruction.fromJson(json));
      case FlowBodyInstruction.TYPE -> Optional.of(FlowBodyInstruction.fromJson(json));
      default -> Optional.empty();
    };
  }

  /** The typed instruction of an agent step; see {@link #fromJson}. */
  static Optional<Instruction> of(StepBody.Agent agent) {
    return fromJson(agent.instruction());
  }
}
