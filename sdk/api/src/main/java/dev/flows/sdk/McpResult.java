package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * The journaled result of one MCP tool call: its receipt {@code {type:"mcp", server, tool, input,
 * output, idempotencyKey}}, where {@code output} holds the tool's {@code content} array and, when
 * the tool gave one, its {@code structuredContent}.
 */
public record McpResult(JsonNode receipt) {
  public JsonNode output() {
    return receipt.path("output");
  }

  public String idempotencyKey() {
    return receipt.path("idempotencyKey").asText();
  }

  /** The text items of the content, joined by newlines. */
  public String text() {
    return StreamSupport.stream(output().path("content").spliterator(), false)
        .filter(c -> "text".equals(c.path("type").asText()))
        .map(c -> c.path("text").asText())
        .collect(Collectors.joining("\n"));
  }

  public Optional<JsonNode> structured() {
    JsonNode s = output().path("structuredContent");
    return s.isMissingNode() || s.isNull() ? Optional.empty() : Optional.of(s);
  }
}
