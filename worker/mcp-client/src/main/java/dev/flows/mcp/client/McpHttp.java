package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpDiagnostic;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The HTTP pieces every MCP exchange shares: the client, and how a failure is read and named. */
final class McpHttp {
  private McpHttp() {}

  /** The HTTP client every MCP exchange uses: redirects are never followed, HTTP/1.1. */
  static HttpClient newHttpClient(Duration connectTimeout) {
    return HttpClient.newBuilder()
        .followRedirects(HttpClient.Redirect.NEVER)
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(connectTimeout)
        .build();
  }

  /** The JDK's words for a connection that ended before any byte of an answer arrived. */
  static boolean staleConnection(IOException e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("header parser received no bytes")
        || (e instanceof java.io.EOFException && m.contains("EOF reached while reading"));
  }

  static String fixFor(McpDiagnostic d) {
    return switch (d) {
      case AUTH_FAILED -> "check the server's auth configuration and the token source";
      case HANDSHAKE_REJECTED -> "check the server URL (redirects are not followed)";
      case HANDSHAKE_TIMEOUT, MCP_DISCONNECTED -> "check that the server is up";
      case MCP_RESULT_UNAVAILABLE -> "the call may or may not have run; retry only if idempotent";
      case PAYLOAD_TOO_LARGE ->
          "raise the server's limits.maxResultBytes, or make the tool answer less";
      case SPAWN_FAILED, MCP_UNKNOWN_TOOL, MCP_TOOL_ERROR -> "";
    };
  }

  static String abbreviate(String s) {
    String one = s.strip().replace('\n', ' ');
    return one.length() > 200 ? one.substring(0, 200) + "..." : one;
  }

  /** Reads and closes a response body that is not used, answering its start. */
  static String discard(HttpResponse<InputStream> r) {
    try (InputStream in = r.body()) {
      byte[] b = in.readNBytes(4096);
      return new String(b, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
