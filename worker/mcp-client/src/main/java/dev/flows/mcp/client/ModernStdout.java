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
 * the line names (its head or tail), which fails that call {@code payload_too_large} at once. The
 * SDK alone drops such a line, so its call would wait out its timeout.
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

  private byte[] bytesOf(BoundedLines.Line l) throws IOException {
    String text =
        switch (l) {
          case BoundedLines.Line.Text t -> t.text();
          case BoundedLines.Line.Oversized o -> {
            LOG.warn("mcp server {}: a message of {} bytes was cut off", server, o.bytes());
            yield LocalAnswers.awaitedId(
                    w -> Optional.ofNullable(pending.get(w)), o.head(), o.tail())
                .map(id -> tooLarge(id, o.bytes()))
                .orElse("");
          }
        };
    return (text + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private String tooLarge(Object id, long bytes) {
    ObjectNode answer = TREE.createObjectNode().put("jsonrpc", "2.0");
    answer.set("id", TREE.valueToTree(id));
    ObjectNode error =
        answer
            .putObject("error")
            .put("code", StreamableHttpTransport.LOCAL_ERROR)
            .put("message", LocalAnswers.tooLarge(bytes, limit));
    error
        .putObject("data")
        .put(StreamableHttpTransport.DIAGNOSTIC_KEY, McpDiagnostic.PAYLOAD_TOO_LARGE.wire());
    return answer.toString();
  }
}
