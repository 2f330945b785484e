package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * What a tool answered. {@code content} is the MCP content array as JSON; a result the tool marked
 * as an error is still a result (the tool ran), and {@link #diagnostic()} names it.
 */
public record ToolCallResult(
    String server,
    String tool,
    boolean isError,
    JsonNode content,
    Optional<JsonNode> structuredContent) {

  public ToolCallResult {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(structuredContent, "structuredContent");
  }

  /** {@code mcp_tool_error} when the tool reported failure, else empty. */
  public Optional<McpDiagnostic> diagnostic() {
    return isError ? Optional.of(McpDiagnostic.MCP_TOOL_ERROR) : Optional.empty();
  }

  /** The text items of the content, joined by newlines (the common case for simple tools). */
  public String text() {
    return StreamSupport.stream(content.spliterator(), false)
        .filter(c -> "text".equals(c.path("type").asText()))
        .map(c -> c.path("text").asText())
        .collect(Collectors.joining("\n"));
  }
}
