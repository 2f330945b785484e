package dev.flows.sdk.config;

import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.sdk.TaskUse;

/**
 * One server of {@code flows.json}. {@code honoursIdempotencyKeys}: the server dedupes calls by the
 * idempotency key sent in {@code _meta}, so a call whose outcome is unknown may be sent again.
 * {@code tasks}: whether its calls are made as tasks, unless a call says otherwise (empty:
 * automatic).
 */
public record ServerEntry(
    McpServerConfig config, boolean honoursIdempotencyKeys, java.util.Optional<TaskUse> tasks) {
  public ServerEntry(McpServerConfig config, boolean honoursIdempotencyKeys) {
    this(config, honoursIdempotencyKeys, java.util.Optional.empty());
  }

  public String name() {
    return config.name();
  }
}
