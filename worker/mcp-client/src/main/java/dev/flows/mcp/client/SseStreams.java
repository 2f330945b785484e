package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SSE streams of a Streamable HTTP connection: a POST's answer read to its end (resumed with
 * GET and Last-Event-ID when it drops before the answer, unless its call was given up), and the
 * standalone GET stream that carries the server's notifications.
 */
final class SseStreams {
  private static final Logger LOG = LoggerFactory.getLogger(SseStreams.class);

  /** What the streams need of their transport. */
  interface Endpoint {
    /** GET on the endpoint (resume or standalone stream); empty when the server was unreachable. */
    Optional<HttpResponse<InputStream>> get(Optional<String> lastEventId);

    JSONRPCMessage parse(String data) throws IOException;

    void deliver(JSONRPCMessage m);

    /** The server is gone: reported once to the connection. */
    void lost(String why);
  }

  private final String server;
  private final McpClientConfig limits;
  private final AtomicBoolean closing;
  private final Set<InputStream> open;
  private final Endpoint endpoint;
  private final SplittableRandom random = new SplittableRandom();

  SseStreams(
      String server,
      McpClientConfig limits,
      AtomicBoolean closing,
      Set<InputStream> open,
      Endpoint endpoint) {
    this.server = server;
    this.limits = limits;
    this.closing = closing;
    this.open = open;
    this.endpoint = endpoint;
  }

  /** What one read of an SSE stream saw. */
  private record StreamEnd(boolean answered, Optional<String> lastEventId, OptionalLong retryMs) {}

  private StreamEnd readEvents(InputStream body, Object awaited) {
    open.add(body);
    boolean answered = false;
    SseReader sse = new SseReader(body, limits.maxResultBytes());
    try (sse) {
      Optional<SseReader.Event> ev;
      while ((ev = sse.next()).isPresent()) {
        String data = ev.get().data();
        if (!"message".equals(ev.get().type()) || data.isBlank()) {
          continue;
        }
        JSONRPCMessage m;
        try {
          m = endpoint.parse(data);
        } catch (IOException | IllegalArgumentException e) {
          LOG.warn("mcp server {}: ignoring an SSE event that is not JSON-RPC", server);
          continue;
        }
        if (awaited != null
            && m instanceof JSONRPCResponse res
            && String.valueOf(awaited).equals(String.valueOf(res.id()))) {
          answered = true;
        }
        // Read on to the end even once answered: a body left unread makes the HTTP client drop
        // the connection instead of reusing it, which costs a new TCP connection per call.
        endpoint.deliver(m);
      }
    } catch (SseReader.TooLarge e) {
      LOG.warn("mcp server {}: an SSE event of {}+ bytes was cut off", server, e.bytes());
      if (awaited != null && !closing.get()) {
        endpoint.deliver(
            LocalAnswers.error(
                awaited,
                McpDiagnostic.PAYLOAD_TOO_LARGE,
                LocalAnswers.tooLarge(e.bytes(), limits.maxResultBytes())));
        answered = true;
      }
    } catch (IOException e) {
      LOG.debug("mcp server {}: SSE stream interrupted: {}", server, e.toString());
    } finally {
      open.remove(body);
    }
    return new StreamEnd(answered, sse.lastEventId(), sse.retryMs());
  }

  /** Reads a POST's SSE answer; if it drops before the answer, resumes it with GET. */
  void readResponseStream(InputStream body, Object awaited) {
    StreamEnd end = readEvents(body, awaited);
    Optional<String> lastId = end.lastEventId();
    OptionalLong retry = end.retryMs();
    int attempt = 0;
    while (!end.answered() && awaited != null && !closing.get() && !givenUp(body)) {
      attempt++;
      if (lastId.isEmpty() || attempt > limits.maxStreamResumes()) {
        unavailable(
            awaited,
            lastId.isEmpty()
                ? "stream dropped before any event id"
                : "stream could not be resumed");
        return;
      }
      if (!pause(retry, attempt) || givenUp(body)) {
        return;
      }
      Optional<HttpResponse<InputStream>> r = endpoint.get(lastId);
      if (r.isEmpty()) {
        continue;
      }
      int status = r.get().statusCode();
      if (status != 200) {
        McpHttp.discard(r.get());
        unavailable(awaited, "resume answered HTTP " + status);
        return;
      }
      end = readEvents(r.get().body(), awaited);
      if (end.lastEventId().isPresent()) {
        lastId = end.lastEventId();
      }
      if (end.retryMs().isPresent()) {
        retry = end.retryMs();
      }
    }
  }

  /** Whether the call {@code body} answers was given up: nothing of it is resumed then. */
  private static boolean givenUp(InputStream body) {
    return body instanceof SentCalls.Answer a && a.givenUp();
  }

  private void unavailable(Object id, String why) {
    if (closing.get()) {
      return;
    }
    endpoint.deliver(
        new JSONRPCResponse(
            McpSchema.JSONRPC_VERSION,
            id,
            null,
            new JSONRPCResponse.JSONRPCError(
                StreamableHttpTransport.LOCAL_ERROR,
                "result unavailable: " + why,
                Map.of(
                    StreamableHttpTransport.DIAGNOSTIC_KEY,
                    McpDiagnostic.MCP_RESULT_UNAVAILABLE.wire()))));
  }

  /** Sleeps the server's retry delay, or our backoff; false when closing. */
  private boolean pause(OptionalLong retryMs, int attempt) {
    Duration d =
        retryMs.isPresent()
            ? Duration.ofMillis(retryMs.getAsLong())
            : limits.backoff(attempt, random.nextDouble(-1.0, 1.0));
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      return false;
    }
    return !closing.get();
  }

  /**
   * The standalone server-to-client stream (notifications such as tools/list_changed). Re-opened
   * after a drop with Last-Event-ID; a server that stops answering altogether is reported lost.
   */
  void runGetStream() {
    Optional<String> lastId = Optional.empty();
    OptionalLong retry = OptionalLong.empty();
    int failures = 0;
    while (!closing.get()) {
      Optional<HttpResponse<InputStream>> r = endpoint.get(lastId);
      if (r.isPresent()) {
        int status = r.get().statusCode();
        if (status != 200) {
          McpHttp.discard(r.get());
          // 405: the server offers no stream; 404: the session is gone and the next POST says so.
          return;
        }
        failures = 0;
        StreamEnd end = readEvents(r.get().body(), null);
        if (end.lastEventId().isPresent()) {
          lastId = end.lastEventId();
        }
        if (end.retryMs().isPresent()) {
          retry = end.retryMs();
        }
      } else if (++failures > limits.maxReconnectAttempts()) {
        endpoint.lost("the server stopped answering");
        return;
      }
      if (!pause(retry, Math.max(1, failures))) {
        return;
      }
    }
  }
}
