package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolDescriptor;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/** A 2025-revision session: the SDK's session client over one of our transports. */
final class LegacySession implements Session {
  private static final Logger LOG = LoggerFactory.getLogger(LegacySession.class);
  private static final McpSchema.Implementation CLIENT_INFO =
      new McpSchema.Implementation("flows", "0.1.0");

  private final String server;
  private final McpClientConfig limits;
  private final McpAsyncClient client;
  private final McpClientTransport transport;
  private volatile String protocolVersion = "";

  /**
   * {@code elicitationDefaults}: declare elicitation and accept each form with its defaults; {@code
   * toolsChanged} runs on {@code notifications/tools/list_changed}.
   */
  LegacySession(
      String server,
      McpClientConfig limits,
      McpClientTransport transport,
      boolean elicitationDefaults,
      Runnable toolsChanged) {
    this.server = server;
    this.limits = limits;
    this.transport = transport;
    McpClient.AsyncSpec spec =
        McpClient.async(transport)
            .clientInfo(CLIENT_INFO)
            // The SDK has one timeout for every request; ours are per kind and enforced here.
            .requestTimeout(
                limits.callTimeout().compareTo(limits.listTimeout()) > 0
                    ? limits.callTimeout()
                    : limits.listTimeout())
            .initializationTimeout(limits.connectTimeout())
            .toolsChangeConsumer(tools -> Mono.fromRunnable(toolsChanged));
    if (elicitationDefaults) {
      spec.capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
          .applyElicitationDefaults(true)
          .elicitation(
              req ->
                  Mono.just(
                      new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of())));
    } else {
      spec.capabilities(McpSchema.ClientCapabilities.builder().build());
    }
    this.client = spec.build();
  }

  @Override
  public void start() {
    McpSchema.InitializeResult init =
        McpWire.await(client.initialize(), limits.connectTimeout().plus(limits.stopGrace()), true);
    protocolVersion = init == null || init.protocolVersion() == null ? "" : init.protocolVersion();
  }

  @Override
  public List<ToolDescriptor> listTools() {
    return McpWire.listAll(client, server, limits.listTimeout());
  }

  @Override
  public CompletableFuture<ToolCallResult> call(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, boolean reissue) {
    String version = protocolVersion;
    McpSchema.CallToolRequest request =
        new McpSchema.CallToolRequest(tool, arguments, meta.isEmpty() ? null : meta);
    CompletableFuture<McpSchema.CallToolResult> sdk =
        client
            .callTool(request)
            .toFuture()
            .orTimeout(limits.callTimeout().toMillis(), TimeUnit.MILLISECONDS);
    CompletableFuture<ToolCallResult> out = new CompletableFuture<>();
    sdk.whenComplete(
        (r, e) -> {
          if (e == null) {
            out.complete(McpWire.toResult(server, tool, r, version));
          } else {
            if (e instanceof java.util.concurrent.TimeoutException) {
              cancelOnWire(request, "timed out");
            }
            out.completeExceptionally(McpFailures.call(server, tool, e));
          }
        });
    out.whenComplete(
        (r, e) -> {
          if (out.isCancelled()) {
            sdk.cancel(true);
            cancelOnWire(request, "cancelled by the caller");
          }
        });
    return out;
  }

  /**
   * The SDK's 2025 client drops a given-up request without telling the server; the transport does,
   * naming it by the params object the request was sent with.
   */
  private void cancelOnWire(McpSchema.CallToolRequest request, String reason) {
    if (transport instanceof CancellableTransport ct) {
      ct.cancel(request, reason);
    }
  }

  @Override
  public String protocolVersion() {
    return protocolVersion;
  }

  @Override
  public void close() {
    try {
      client
          .closeGracefully()
          .timeout(limits.stopGrace().multipliedBy(3))
          .onErrorResume(e -> Mono.empty())
          .block();
    } catch (RuntimeException e) {
      LOG.debug("closing session of {}: {}", server, e.toString());
    }
    try {
      client.close();
    } catch (RuntimeException e) {
      LOG.debug("closing client of {}: {}", server, e.toString());
    }
    try {
      transport.close();
    } catch (RuntimeException e) {
      LOG.debug("closing transport of {}: {}", server, e.toString());
    }
  }
}
