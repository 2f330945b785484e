package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolRegistry;
import dev.flows.kernel.spec.RunSpecJson;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The MCP sessions of one worker, one per (server, frozen connection config), opened on first use
 * and kept: a call does not pay for initialize and tools/list. A connection that was closed or gave
 * up reconnecting is replaced on the next call.
 */
public final class McpSessions implements AutoCloseable {
  private final McpClientConfig limits;
  private final McpCredentials credentials;
  private final ToolRegistry registry = new ToolRegistry();
  private final Map<String, McpConnection> byKey = new ConcurrentHashMap<>();
  private final SplittableRandom random = new SplittableRandom();

  public McpSessions(McpClientConfig limits, McpCredentials credentials) {
    this.limits = limits;
    this.credentials = credentials;
  }

  public McpClientConfig limits() {
    return limits;
  }

  /** A connected session for the frozen connection config; connects (bounded) when needed. */
  public McpTransportPort session(JsonNode frozenConnection) throws InterruptedException {
    String key = RunSpecJson.canonicalText(frozenConnection);
    McpConnection c;
    java.util.concurrent.CompletableFuture<Void> ready;
    synchronized (this) {
      c = byKey.get(key);
      if (c == null || c.state() == dev.flows.kernel.mcp.ConnectionState.CLOSED) {
        McpServerConfig config = McpServerConfigJson.read(frozenConnection);
        c =
            new McpConnection(
                    config.name(),
                    config.limits(limits),
                    McpTransports.factory(config, config.limits(limits), credentials),
                    registry,
                    random.split())
                // A live elicitation goes to the call that asked, or is declined at once.
                .routeLiveInputToCalls();
        byKey.put(key, c);
      }
      // Only the first caller connects: the others join its attempt (or a reconnect in flight)
      // rather than fail because the connection is busy connecting. Decided under this lock, so
      // two callers never both see it disconnected.
      ready =
          c.state() == dev.flows.kernel.mcp.ConnectionState.DISCONNECTED
              ? c.connect()
              : c.whenConnected();
    }
    try {
      // Twice the connect timeout: the connection's own timeout fires first with a diagnostic.
      ready.get(limits.connectTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof McpException m) {
        throw m;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new McpException(
          dev.flows.kernel.mcp.McpDiagnostic.HANDSHAKE_TIMEOUT,
          c.server(),
          "no handshake within " + limits.connectTimeout(),
          "check that the server starts and answers initialize");
    }
    return c;
  }

  @Override
  public void close() {
    byKey.values().forEach(McpConnection::stop);
    byKey.clear();
  }
}
