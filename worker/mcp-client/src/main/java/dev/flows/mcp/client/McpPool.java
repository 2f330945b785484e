package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * The MCP servers of one worker, stdio and HTTP mixed, sharing one {@link ToolRegistry}. Tools are
 * addressed as {@code server/tool}.
 */
public final class McpPool implements AutoCloseable {
  private final Map<String, McpTransportPort> connections = new LinkedHashMap<>();
  private final ToolRegistry registry;

  public McpPool(
      List<McpServerConfig> servers,
      McpClientConfig limits,
      McpCredentials credentials,
      ToolRegistry registry) {
    this.registry = registry;
    SplittableRandom random = new SplittableRandom();
    for (McpServerConfig s : servers) {
      if (connections.containsKey(s.name())) {
        throw new IllegalArgumentException("two MCP servers named " + s.name());
      }
      connections.put(
          s.name(),
          new McpConnection(
              s.name(),
              s.limits(limits),
              McpTransports.factory(s, s.limits(limits), credentials),
              registry,
              random.split()));
    }
  }

  /** See {@link McpConnection#answerElicitationsWithDefaults()}; before {@link #connectAll()}. */
  public McpPool answerElicitationsWithDefaults() {
    connections.values().forEach(c -> ((McpConnection) c).answerElicitationsWithDefaults());
    return this;
  }

  public ToolRegistry registry() {
    return registry;
  }

  public Map<String, McpTransportPort> connections() {
    return Map.copyOf(connections);
  }

  /** Connects every server; completes when all are connected (or the first fails). */
  public CompletableFuture<Void> connectAll() {
    return CompletableFuture.allOf(
        connections.values().stream()
            .map(McpTransportPort::connect)
            .toArray(CompletableFuture[]::new));
  }

  /** Calls {@code server/tool}. */
  public CompletableFuture<ToolCallResult> call(String qualifiedTool, Map<String, Object> args) {
    int slash = qualifiedTool.indexOf('/');
    McpTransportPort c = slash < 0 ? null : connections.get(qualifiedTool.substring(0, slash));
    if (c == null) {
      return CompletableFuture.failedFuture(
          new McpException(
              McpDiagnostic.MCP_UNKNOWN_TOOL,
              slash < 0 ? qualifiedTool : qualifiedTool.substring(0, slash),
              "no server for tool " + qualifiedTool,
              "address tools as server/tool"));
    }
    return c.callTool(qualifiedTool.substring(slash + 1), args);
  }

  @Override
  public void close() {
    connections.values().forEach(McpTransportPort::stop);
  }
}
