package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.mcp.McpDiagnostic;
import io.modelcontextprotocol.modern.JsonRpc;
import io.modelcontextprotocol.modern.client.transport.McpClientTransport;
import io.modelcontextprotocol.modern.client.transport.McpTransportRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

/**
 * A stdio server's stdout as the SDK's 2026-07-28 stdio transport reads it, each line counted while
 * it is read ({@link BoundedLines}): a line within {@code maxResultBytes} passes as it is; a longer
 * one is never held, and in its place the transport reads an error answer to the pending request
 * the line names (its head or tail), which fails that call {@code payload_too_large} at once; a
 * line that is not JSON (or nests past Jackson's limit) fails the call it names {@code
 * mcp_result_unavailable} the same way. The SDK alone drops such lines, so their calls would wait
 * out their timeouts.
 */
final class ModernStdout extends InputStream {
  private static final Logger LOG = LoggerFactory.getLogger(ModernStdout.class);
  private static final ObjectMapper TREE = dev.flows.kernel.json.Jackson.mapper();

  private final String server;
  private final BoundedLines lines;
  private final int limit;

  /** The requests sent and not yet answered, by their id as written on the wire. */
  private final Map<String, Object> pending = new ConcurrentHashMap<>();

  private byte[] line = new byte[0];
  private int at;

  ModernStdout(String server, InputStream stdout, int limit) {
    this.server = server;
    this.lines = new BoundedLines(stdout, limit);
    this.limit = limit;
  }

  /** {@code sdk}, noting which requests are awaited so a cut-off answer can name its call. */
  McpClientTransport watching(McpClientTransport sdk) {
    return new McpClientTransport() {
      @Override
      public Flux<JsonRpc.JSONRPCMessage> exchange(McpTransportRequest request) {
        Object id = request.message().id();
        if (id == null) {
          return sdk.exchange(request);
        }
        String wire = String.valueOf(id);
        pending.put(wire, id);
        return sdk.exchange(request).doFinally(s -> pending.remove(wire, id));
      }

      @Override
      public boolean mirrorsToolParams() {
        return sdk.mirrorsToolParams();
      }
    };
  }

  @Override
  public int read() throws IOException {
    if (!ready()) {
      return -1;
    }
    return line[at++] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (!ready()) {
      return -1;
    }
    int n = Math.min(len, line.length - at);
    System.arraycopy(line, at, b, off, n);
    at += n;
    return n;
  }

  /** True when bytes of a line are there to read (reading the next line if needed). */
  private boolean ready() throws IOException {
    while (at == line.length) {
      Optional<BoundedLines.Line> next = lines.next();
      if (next.isEmpty()) {
        return false;
      }
      line = bytesOf(next.get());
      at = 0;
    }
    return true;
  }

  private byte[] bytesOf(BoundedLines.Line l) {
    String text =
        switch (l) {
          case BoundedLines.Line.Text t -> checked(t.text());
          case BoundedLines.Line.Oversized o -> {
            LOG.warn("mcp server {}: a message of {} bytes was cut off", server, o.bytes());
            yield answerFor(
                McpDiagnostic.PAYLOAD_TOO_LARGE,
                LocalAnswers.tooLarge(o.bytes(), limit),
                o.head(),
                o.tail());
          }
        };
    return (text + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * {@code text} when it is JSON the SDK can read (within Jackson's nesting limit); otherwise an
   * error answer to the pending request it names, since the SDK would drop it and leave that call
   * to its timeout.
   */
  private String checked(String text) {
    if (text.isBlank()) {
      return text;
    }
    try (com.fasterxml.jackson.core.JsonParser p = TREE.getFactory().createParser(text)) {
      while (p.nextToken() != null) {
        // Reading every token is the check: a syntax error or a nesting past the limit throws.
      }
      return text;
    } catch (IOException | RuntimeException e) {
      LOG.warn("mcp server {}: a line that is not JSON-RPC", server);
      return answerFor(
          McpDiagnostic.MCP_RESULT_UNAVAILABLE,
          "the answer is not valid JSON-RPC: " + McpHttp.abbreviate(e.getMessage() + ""),
          text.substring(0, Math.min(text.length(), BoundedLines.KEPT_BYTES)),
          text.substring(Math.max(0, text.length() - BoundedLines.KEPT_BYTES)));
    }
  }

  /** The error answer to the pending request {@code texts} name, or nothing (a blank line). */
  private String answerFor(McpDiagnostic d, String message, String... texts) {
    return LocalAnswers.awaitedId(w -> Optional.ofNullable(pending.get(w)), texts)
        .map(id -> error(id, d, message))
        .orElse("");
  }

  private static String error(Object id, McpDiagnostic d, String message) {
    ObjectNode answer = TREE.createObjectNode().put("jsonrpc", "2.0");
    answer.set("id", TREE.valueToTree(id));
    ObjectNode error =
        answer
            .putObject("error")
            .put("code", StreamableHttpTransport.LOCAL_ERROR)
            .put("message", message);
    error.putObject("data").put(StreamableHttpTransport.DIAGNOSTIC_KEY, d.wire());
    return answer.toString();
  }
}
