package dev.flows.mcp.client;

import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolDescriptor;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What a connection talks through once it knows the server's era: a 2025 session (initialize, then
 * requests on it) or the stateless 2026-07-28 client.
 */
sealed interface Session permits LegacySession, ModernSession {
  /** Whatever the era needs before the first request (the 2025 handshake). */
  void start();

  List<ToolDescriptor> listTools();

  /** A cancelled future cancels the call on the wire. */
  CompletableFuture<ToolCallResult> call(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, boolean reissue);

  /** The revision the server answered in ("" when it did not say). */
  String protocolVersion();

  void close();
}
