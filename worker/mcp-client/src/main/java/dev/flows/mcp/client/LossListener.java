package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpException;

/** Told once when a transport can no longer carry messages (process exit, session gone). */
@FunctionalInterface
public interface LossListener {
  void lost(McpException why);
}
