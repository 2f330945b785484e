package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import java.io.InputStream;
import java.net.http.HttpResponse;

/**
 * What an HTTP status that is not an answer means to an MCP client: a redirect is refused (the
 * configured URL is the one the operator trusted), a 4xx or 5xx is the handshake's refusal, or a
 * tool's error, or a result the server could not give.
 */
final class HttpRefusals {
  private HttpRefusals() {}

  /**
   * Throws the refusal {@code r} stands for, its body read and dropped; returns when {@code r} is
   * an answer (a 1xx or 2xx).
   *
   * @param init whether {@code r} answers the initialize request
   */
  static void refuseUnlessAnswered(HttpResponse<InputStream> r, boolean init, String server) {
    int status = r.statusCode();
    if (status >= 300 && status < 400) {
      McpHttp.discard(r);
      throw refusal(
          McpDiagnostic.HANDSHAKE_REJECTED,
          server,
          "redirect ("
              + status
              + ") to "
              + r.headers().firstValue("Location").orElse("?")
              + " refused");
    }
    if (status >= 400) {
      String body = McpHttp.discard(r);
      McpDiagnostic d =
          init
              ? McpDiagnostic.HANDSHAKE_REJECTED
              : status >= 500 ? McpDiagnostic.MCP_RESULT_UNAVAILABLE : McpDiagnostic.MCP_TOOL_ERROR;
      throw refusal(
          d, server, "HTTP " + status + (body.isBlank() ? "" : ": " + McpHttp.abbreviate(body)));
    }
  }

  private static McpException refusal(McpDiagnostic d, String server, String message) {
    return new McpException(d, server, message, McpHttp.fixFor(d), null);
  }
}
