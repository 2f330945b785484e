package dev.flows.sdk.config;

import dev.flows.kernel.mcp.McpServerConfig;

/**
 * One server of {@code flows.json}. {@code honoursIdempotencyKeys}: the server dedupes calls by the
 * idempotency key sent in {@code _meta}, so a call whose outcome is unknown may be sent again.
 */
public record ServerEntry(McpServerConfig config, boolean honoursIdempotencyKeys) {
  public String name() {
    return config.name();
  }
}
