package dev.flows.examples.servers;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.json.Jackson;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

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

  /** A tool served on both revisions (see {@link ExampleTool}). */
  public static ExampleTool tool(
      String name,
      String description,
      Map<String, Object> inputSchema,
      McpSchema.ToolAnnotations annotations,
      Function<ToolCall, CallToolResult> handler) {
    McpSchema.Tool tool =
        McpSchema.Tool.builder()
            .name(name)
            .title(annotations.title())
            .description(description)
            .inputSchema(inputSchema)
            .annotations(annotations)
            .build();
    return new ExampleTool(tool, handler);
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
