package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolDescriptor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What a connection talks through once it knows the server's era: a 2025 session (initialize, then
 * requests on it) or the stateless 2026-07-28 client.
 */
sealed interface ProtocolSession permits LegacySession, ModernSession {
  /**
   * A fresh session of {@code server}: 2026-07-28 when the server answers {@code server/discover}
   * and {@code transports} allows it, else one for the 2025 handshake. {@code onLost} is told when
   * its transport is lost; {@code toolsChanged} runs when a 2025 server says its tools changed;
   * {@code liveInput}: a 2025 session routes live elicitations to its calls.
   */
  static ProtocolSession open(
      String server,
      McpClientConfig limits,
      TransportFactory transports,
      boolean elicitationDefaults,
      boolean liveInput,
      LossListener onLost,
      Runnable toolsChanged) {
    McpProtocol protocol = transports.protocol();
    Optional<ModernSession> modern =
        protocol.triesModern()
            ? ModernSession.tryDiscover(
                server, limits, protocol, elicitationDefaults, transports.modern(onLost))
            : Optional.empty();
    return modern.isPresent()
        ? modern.get()
        : new LegacySession(
            server,
            limits,
            transports.create(onLost),
            elicitationDefaults,
            liveInput,
            toolsChanged);
  }

  /** Whatever the era needs before the first request (the 2025 handshake). */
  void start();

  List<ToolDescriptor> listTools();

  /** A cancelled future cancels the call on the wire. */
  CompletableFuture<ToolCallResult> call(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, boolean reissue);

  /**
   * A call made as {@code options} say (see {@link dev.flows.kernel.mcp.McpTransportPort#call}).
   */
  CompletableFuture<ToolCallOutcome> outcome(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, CallOptions options);

  CompletableFuture<McpTask> getTask(String tool, String taskId);

  CompletableFuture<Void> updateTask(String taskId, Map<String, JsonNode> inputResponses);

  CompletableFuture<Void> cancelTask(String taskId);

  /** The revision the server answered in ("" when it did not say). */
  String protocolVersion();

  void close();
}
