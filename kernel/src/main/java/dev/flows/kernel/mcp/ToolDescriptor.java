package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;
import java.util.Optional;

/**
 * A tool a server offers, as registered: {@code server/name} is its key. Schemas are kept as JSON
 * so that no MCP SDK type crosses into the kernel.
 */
public record ToolDescriptor(
    String server,
    String name,
    Optional<String> title,
    Optional<String> description,
    JsonNode inputSchema,
    Optional<JsonNode> outputSchema,
    ToolHints hints) {

  public ToolDescriptor {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(inputSchema, "inputSchema");
    Objects.requireNonNull(outputSchema, "outputSchema");
    Objects.requireNonNull(hints, "hints");
  }

  /** The registry key, {@code server/tool}. */
  public String qualifiedName() {
    return server + "/" + name;
  }

  /** The server's annotations; each hint is absent when the server did not state it. */
  public record ToolHints(
      Optional<Boolean> readOnly,
      Optional<Boolean> destructive,
      Optional<Boolean> idempotent,
      Optional<Boolean> openWorld) {
    public static final ToolHints NONE =
        new ToolHints(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
  }
}
