package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * What a tool answered. {@code content} is the MCP content array as JSON; a result the tool marked
 * as an error is still a result (the tool ran), and {@link #diagnostic()} names it. {@code
 * protocolVersion} is the revision the server answered in (empty when unknown) and {@code
 * wireAttempts} every request sent for this call, the answered one last.
 */
public record ToolCallResult(
    String server,
    String tool,
    boolean isError,
    JsonNode content,
    Optional<JsonNode> structuredContent,
    String protocolVersion,
    List<WireAttempt> wireAttempts) {

  public ToolCallResult {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(content, "content");
    Objects.requireNonNull(structuredContent, "structuredContent");
    Objects.requireNonNull(protocolVersion, "protocolVersion");
    wireAttempts = List.copyOf(wireAttempts);
  }

  public ToolCallResult(
      String server,
      String tool,
      boolean isError,
      JsonNode content,
      Optional<JsonNode> structuredContent) {
    this(server, tool, isError, content, structuredContent, "", List.of());
  }

  /**
   * One request sent for a call: its JSON-RPC id, the revision it was sent in, and why it was sent
   * again when it re-issues an earlier one whose response was lost (empty for the first).
   */
  public record WireAttempt(
      String requestId, String protocolVersion, Optional<String> resentBecause) {
    public WireAttempt {
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(protocolVersion, "protocolVersion");
      Objects.requireNonNull(resentBecause, "resentBecause");
    }
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
