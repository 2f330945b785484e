package dev.flows.sdk.config;

import dev.flows.kernel.keys.SecretMarks;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.sdk.TaskUse;

/**
 * One server of {@code flows.json}. {@code honoursIdempotencyKeys}: the server dedupes calls by the
 * idempotency key sent in {@code _meta}, so a call whose outcome is unknown may be sent again.
 * {@code tasks}: whether its calls are made as tasks, unless a call says otherwise (empty:
 * automatic). {@code secrets}: by tool name, the parts of its calls marked secret.
 */
public record ServerEntry(
    McpServerConfig config,
    boolean honoursIdempotencyKeys,
    java.util.Optional<TaskUse> tasks,
    java.util.Map<String, SecretMarks> secrets) {
  public ServerEntry {
    secrets = java.util.Map.copyOf(new java.util.TreeMap<>(secrets));
  }

  public ServerEntry(McpServerConfig config, boolean honoursIdempotencyKeys) {
    this(config, honoursIdempotencyKeys, java.util.Optional.empty());
  }

  public ServerEntry(
      McpServerConfig config, boolean honoursIdempotencyKeys, java.util.Optional<TaskUse> tasks) {
    this(config, honoursIdempotencyKeys, tasks, java.util.Map.of());
  }

  public String name() {
    return config.name();
  }
}
