package dev.flows.mcp.client;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * A 2025 transport that can tell the server a request was given up. The SDK's 2025 client keeps
 * request ids to itself, so the request is named by the params object it was sent with.
 */
interface CancellableTransport {
  /** Best effort: the request is forgotten here whether or not the server hears of it. */
  void cancel(McpSchema.CallToolRequest request, String reason);
}
