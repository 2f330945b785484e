package dev.flows.examples.servers;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.json.Jackson;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/** Small helpers shared by the example servers' tool definitions. */
public final class ToolKit {
  static final ObjectMapper JSON = Jackson.mapper();

  private ToolKit() {}

  /** A JSON Schema property. */
  public static Map<String, Object> prop(String type, String description) {
    return Map.of("type", type, "description", description);
  }

  public static Map<String, Object> enumProp(String description, List<String> values) {
    return Map.of("type", "string", "description", description, "enum", values);
  }

  /** An object schema that refuses unknown properties. */
  public static Map<String, Object> objectSchema(
      Map<String, Object> properties, List<String> required) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("type", "object");
    s.put("properties", properties);
    s.put("required", required);
    s.put("additionalProperties", false);
    return s;
  }

  public static McpSchema.ToolAnnotations annotations(
      String title, boolean readOnly, boolean destructive, boolean idempotent) {
    return new McpSchema.ToolAnnotations(title, readOnly, destructive, idempotent, false, null);
  }

  /**
   * A tool whose handler answers a JSON object; a {@link ToolError} becomes an {@code isError}
   * result carrying its message.
   */
  public static SyncToolSpecification tool(
      String name,
      String description,
      Map<String, Object> inputSchema,
      McpSchema.ToolAnnotations annotations,
      BiFunction<McpSyncServerExchange, CallToolRequest, CallToolResult> handler) {
    McpSchema.Tool tool =
        McpSchema.Tool.builder()
            .name(name)
            .title(annotations.title())
            .description(description)
            .inputSchema(inputSchema)
            .annotations(annotations)
            .build();
    return SyncToolSpecification.builder()
        .tool(tool)
        .callHandler(
            (exchange, request) -> {
              try {
                return handler.apply(exchange, request);
              } catch (ToolError e) {
                return error(e.getMessage());
              }
            })
        .build();
  }

  /** A successful result: the object as structured content and as JSON text. */
  public static CallToolResult ok(Map<String, Object> structured) {
    String text;
    try {
      text = JSON.writeValueAsString(structured);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    return CallToolResult.builder()
        .addTextContent(text)
        .structuredContent(structured)
        .isError(false)
        .build();
  }

  public static CallToolResult error(String message) {
    return CallToolResult.builder().addTextContent(message).isError(true).build();
  }
}
