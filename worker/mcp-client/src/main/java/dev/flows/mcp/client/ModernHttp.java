package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import io.modelcontextprotocol.modern.client.transport.HttpClientMcpTransport;
import io.modelcontextprotocol.modern.client.transport.McpHttpAuthorizationErrorHandler;
import io.modelcontextprotocol.modern.client.transport.McpHttpRequestCustomizer;

/**
 * The SDK's 2026-07-28 Streamable HTTP transport (it sends {@code MCP-Protocol-Version}, {@code
 * Mcp-Method}, {@code Mcp-Name} and the tool-defined headers), with the server's configured headers
 * and our authenticator: its headers on every request, its challenge handling on 401/403.
 */
final class ModernHttp {
  private ModernHttp() {}

  static TransportFactory.ModernTransport transport(
      McpServerConfig.Http h, McpClientConfig limits, HttpAuthenticator auth) {
    HttpClientMcpTransport t =
        HttpClientMcpTransport.builder(h.url())
            .connectTimeout(limits.connectTimeout())
            // Counted while read: a body, line or SSE event past it is cut off
            // (McpFailures.cutOff).
            .maxResponseSize(limits.maxResultBytes())
            .requestCustomizer(
                McpHttpRequestCustomizer.fromSync(
                    (request, headers, context) -> {
                      h.headers().forEach(headers::set);
                      auth.headers().forEach(headers::set);
                    }))
            .authorizationErrorHandler(
                McpHttpAuthorizationErrorHandler.fromSync(
                    new McpHttpAuthorizationErrorHandler.Sync() {
                      @Override
                      public boolean handle(
                          io.modelcontextprotocol.modern.client.transport.McpHttpRequest request,
                          io.modelcontextprotocol.modern.client.transport.McpHttpResponseInfo
                              response,
                          io.modelcontextprotocol.common.McpTransportContext context) {
                        return auth.onChallenge(response.statusCode(), response.headers());
                      }

                      @Override
                      public int maxRetries() {
                        return limits.maxAuthChallenges();
                      }
                    }))
            .build();
    return new TransportFactory.ModernTransport(t, () -> {});
  }
}
