package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpServerConfig;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The SDK's client transport over MCP Streamable HTTP on {@code java.net.http}, written here so it
 * can resume and recover: an SSE response that drops before its answer is resumed with GET and
 * {@code Last-Event-ID} after the server's {@code retry:} delay (or our backoff); the standalone
 * GET stream is re-opened the same way; a 404 on a known session re-initializes and retries the
 * rejected request once (the server never ran it); redirects are refused; a server that cannot be
 * reached at all is reported lost so the connection reconnects with backoff.
 */
public final class StreamableHttpTransport implements McpClientTransport, CancellableTransport {
  private static final Logger LOG = LoggerFactory.getLogger(StreamableHttpTransport.class);
  private static final String SESSION = "Mcp-Session-Id";
  private static final String PROTOCOL = "MCP-Protocol-Version";
  private static final String REINIT_ID = "flows-reinit-";

  /** JSON-RPC error code (implementation-defined range) of answers this transport makes up. */
  static final int LOCAL_ERROR = -32001;

  /** Key in such an answer's data naming the {@link McpDiagnostic}. */
  static final String DIAGNOSTIC_KEY = "flowsDiagnostic";

  private final McpServerConfig.Http server;
  private final McpClientConfig limits;
  private final McpJsonMapper json;
  private final HttpAuthenticator auth;
  private final LossListener onLost;
  private final HttpClient http;
  private final AtomicBoolean closing = new AtomicBoolean();
  private final SentCalls sent = new SentCalls();
  private final AtomicBoolean lostFired = new AtomicBoolean();
  private final Set<InputStream> open = ConcurrentHashMap.newKeySet();
  private final SseStreams streams;
  private final Map<Object, CompletableFuture<JSONRPCResponse>> reinits = new ConcurrentHashMap<>();
  private final AtomicLong reinitCount = new AtomicLong();
  private final Object reinitLock = new Object();
  private volatile Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler;
  private volatile String sessionId;
  private volatile String protocolVersion;
  private volatile JSONRPCRequest initializeRequest;
  private volatile Thread getStream;

  public StreamableHttpTransport(
      McpServerConfig.Http server,
      McpClientConfig limits,
      McpJsonMapper json,
      HttpAuthenticator auth,
      LossListener onLost) {
    this.server = server;
    this.limits = limits;
    this.json = json;
    this.auth = auth;
    this.onLost = onLost;
    this.http = McpHttp.newHttpClient(limits.connectTimeout());
    this.streams =
        new SseStreams(
            server.name(),
            limits,
            closing,
            open,
            new SseStreams.Endpoint() {
              @Override
              public Optional<HttpResponse<InputStream>> get(Optional<String> lastEventId) {
                return StreamableHttpTransport.this.get(lastEventId);
              }

              @Override
              public JSONRPCMessage parse(String data) throws IOException {
                return StreamableHttpTransport.this.parse(data);
              }

              @Override
              public void deliver(JSONRPCMessage m) {
                StreamableHttpTransport.this.deliver(m);
              }

              @Override
              public void lost(String why) {
                StreamableHttpTransport.this.lost(why);
              }
            });
  }

  /** The session the server assigned, if any. */
  public Optional<String> sessionId() {
    return Optional.ofNullable(sessionId);
  }

  @Override
  public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    this.handler = handler;
    return Mono.empty();
  }

  @Override
  public void cancel(McpSchema.CallToolRequest request, String reason) {
    sent.cancel(request, reason, this);
  }

  @Override
  public Mono<Void> sendMessage(JSONRPCMessage message) {
    sent.sent(message);
    return Mono.fromRunnable(() -> send(message, true))
        .subscribeOn(Schedulers.boundedElastic())
        .then();
  }

  private static boolean isInitialize(JSONRPCMessage m) {
    return m instanceof JSONRPCRequest r && McpSchema.METHOD_INITIALIZE.equals(r.method());
  }

  private void send(JSONRPCMessage message, boolean mayReinit) {
    if (closing.get()) {
      throw error(McpDiagnostic.MCP_DISCONNECTED, "transport is closed", null);
    }
    boolean init = isInitialize(message);
    if (init && !String.valueOf(((JSONRPCRequest) message).id()).startsWith(REINIT_ID)) {
      initializeRequest = (JSONRPCRequest) message;
    }
    String sessionUsed = sessionId;
    if (SentCalls.isToolCall(message)) {
      McpWireTimings.sent();
    }
    HttpResponse<InputStream> r = post(message, init);
    int status = r.statusCode();
    if (status == 404 && sessionUsed != null && !init) {
      McpHttp.discard(r);
      if (!mayReinit) {
        throw lost("the session expired again right after re-initializing");
      }
      LOG.info("mcp server {}: session expired; re-initializing", server.name());
      reinitialize(sessionUsed);
      send(message, false);
      return;
    }
    HttpRefusals.refuseUnlessAnswered(r, init, server.name());
    if (init) {
      r.headers().firstValue(SESSION).ifPresent(s -> sessionId = s);
    }
    receive(r, message);
    if (message instanceof JSONRPCNotification n
        && McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(n.method())) {
      openGetStream();
    }
  }

  /** Hands the server's answer to {@code message} on, as a stream, as JSON, or not at all. */
  private void receive(HttpResponse<InputStream> r, JSONRPCMessage message) {
    int status = r.statusCode();
    String type =
        r.headers().firstValue("Content-Type").orElse("").toLowerCase(java.util.Locale.ROOT);
    if (status == 202 || status == 204) {
      McpHttp.discard(r);
    } else if (type.startsWith("text/event-stream")) {
      Object awaited = message instanceof JSONRPCRequest req ? req.id() : null;
      InputStream body = sent.reading(message, r.body());
      Thread.ofVirtual()
          .name("mcp-http-post-" + server.name())
          .start(() -> streams.readResponseStream(body, awaited));
    } else if (type.startsWith("application/json")) {
      try (InputStream body = sent.reading(message, r.body())) {
        // Read one byte past the limit, never more: closing the body unread drops the connection.
        byte[] answer = body.readNBytes(limits.maxResultBytes() + 1);
        if (answer.length > limits.maxResultBytes()) {
          String why = LocalAnswers.tooLarge(answer.length, limits.maxResultBytes());
          if (!(message instanceof JSONRPCRequest req)) {
            throw error(McpDiagnostic.PAYLOAD_TOO_LARGE, why, null);
          }
          deliver(LocalAnswers.error(req.id(), McpDiagnostic.PAYLOAD_TOO_LARGE, why));
          return;
        }
        deliverJson(new String(answer, StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw error(McpDiagnostic.MCP_RESULT_UNAVAILABLE, "reading the answer: " + e, e);
      }
    } else {
      McpHttp.discard(r);
    }
  }

  private HttpResponse<InputStream> post(JSONRPCMessage message, boolean init) {
    // A tools/call may have side effects: never send it twice on our own, even when the first
    // send probably never arrived. The journal's effect election decides what happens next.
    boolean mayResend =
        !(message instanceof io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest req
            && io.modelcontextprotocol.spec.McpSchema.METHOD_TOOLS_CALL.equals(req.method()));
    byte[] body;
    try {
      body = json.writeValueAsBytes(message);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot serialize " + message, e);
    }
    return exchange(
        () ->
            request(init)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
        mayResend,
        init);
  }

  private HttpRequest.Builder request(boolean init) {
    HttpRequest.Builder b = HttpRequest.newBuilder(server.url()).timeout(limits.callTimeout());
    server.headers().forEach(b::header);
    auth.headers().forEach(b::setHeader);
    String s = sessionId;
    if (s != null && !init) {
      b.header(SESSION, s);
    }
    String v = protocolVersion;
    if (v != null && !init) {
      b.header(PROTOCOL, v);
    }
    return b;
  }

  /** Sends, answering auth challenges a bounded number of times. */
  private HttpResponse<InputStream> exchange(
      java.util.function.Supplier<HttpRequest> build, boolean mayResend, boolean init) {
    boolean resent = !mayResend;
    for (int round = 0; ; round++) {
      HttpResponse<InputStream> r;
      try {
        r = http.send(build.get(), HttpResponse.BodyHandlers.ofInputStream());
      } catch (HttpTimeoutException e) {
        throw error(
            init ? McpDiagnostic.HANDSHAKE_TIMEOUT : McpDiagnostic.MCP_RESULT_UNAVAILABLE,
            "no answer from " + server.url() + " in time",
            e);
      } catch (IOException e) {
        if (!resent && McpHttp.staleConnection(e)) {
          // Almost always a pooled keep-alive connection the server closed while idle, which never
          // delivered the request; one resend on a fresh connection. Not repeated, so a server
          // that really drops requests still surfaces as lost.
          LOG.info(
              "mcp server {}: connection closed before any answer; sending once more",
              server.name());
          resent = true;
          round--;
          continue;
        }
        if (init) {
          throw error(McpDiagnostic.MCP_DISCONNECTED, "cannot reach " + server.url() + ": " + e, e);
        }
        throw lost("cannot reach " + server.url() + ": " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw error(McpDiagnostic.MCP_DISCONNECTED, "interrupted", e);
      }
      int status = r.statusCode();
      if (status != 401 && status != 403) {
        return r;
      }
      McpHttp.discard(r);
      boolean retry;
      try {
        retry = round < limits.maxAuthChallenges() && auth.onChallenge(r.statusCode(), r.headers());
      } catch (McpException e) {
        throw e;
      } catch (RuntimeException e) {
        throw error(
            McpDiagnostic.AUTH_FAILED, "obtaining credentials failed: " + e.getMessage(), e);
      }
      if (!retry) {
        throw error(
            McpDiagnostic.AUTH_FAILED,
            "HTTP " + status + " from " + server.url() + " and no better credentials to offer",
            null);
      }
    }
  }

  private void reinitialize(String expiredSession) {
    synchronized (reinitLock) {
      if (!Objects.equals(sessionId, expiredSession)) {
        return; // another request already made a new session
      }
      JSONRPCRequest original = initializeRequest;
      if (original == null) {
        throw lost("session expired before any initialize was seen");
      }
      sessionId = null;
      String id = REINIT_ID + reinitCount.incrementAndGet();
      CompletableFuture<JSONRPCResponse> answer = new CompletableFuture<>();
      reinits.put(id, answer);
      try {
        send(
            new JSONRPCRequest(
                McpSchema.JSONRPC_VERSION, McpSchema.METHOD_INITIALIZE, id, original.params()),
            false);
        JSONRPCResponse res = answer.get(limits.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
        if (res.error() != null) {
          throw lost("re-initialize refused: " + res.error().message());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw lost("interrupted while re-initializing");
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        throw lost("re-initialize got no answer: " + e);
      } finally {
        reinits.remove(id);
      }
      send(
          new JSONRPCNotification(
              McpSchema.JSONRPC_VERSION, McpSchema.METHOD_NOTIFICATION_INITIALIZED, null),
          false);
    }
  }

  /** Delivers a JSON answer (one message or a batch); what is not a valid message is skipped. */
  private void deliverJson(String body) throws IOException {
    String trimmed = body.strip();
    if (trimmed.isEmpty()) {
      return;
    }
    if (!trimmed.startsWith("[")) {
      try {
        deliver(parse(trimmed));
      } catch (IOException | IllegalArgumentException e) {
        LOG.warn(
            "mcp server {}: ignoring an answer that is not a valid JSON-RPC message",
            server.name());
      }
      return;
    }
    for (Object item : json.readValue(trimmed, new TypeRef<List<Object>>() {})) {
      try {
        deliver(parse(json.writeValueAsString(item)));
      } catch (IOException | IllegalArgumentException e) {
        LOG.warn(
            "mcp server {}: ignoring an answer that is not a valid JSON-RPC message",
            server.name());
      }
    }
  }

  private JSONRPCMessage parse(String s) throws IOException {
    return McpSchema.deserializeJsonRpcMessage(json, s);
  }

  private void deliver(JSONRPCMessage m) {
    if (m == null) {
      return;
    }
    sent.received(m);
    if (m instanceof JSONRPCResponse res) {
      CompletableFuture<JSONRPCResponse> reinit = reinits.get(res.id());
      if (reinit != null) {
        captureProtocolVersion(res);
        reinit.complete(res);
        return;
      }
      JSONRPCRequest init = initializeRequest;
      if (init != null && Objects.equals(String.valueOf(init.id()), String.valueOf(res.id()))) {
        captureProtocolVersion(res);
      }
    }
    Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> h = handler;
    if (h != null) {
      h.apply(Mono.just(m)).subscribe(x -> {}, e -> LOG.debug("handler failed", e));
    }
  }

  private void captureProtocolVersion(JSONRPCResponse res) {
    if (res.result() instanceof Map<?, ?> map && map.get("protocolVersion") instanceof String v) {
      protocolVersion = v;
    }
  }

  /** GET on the endpoint (resume or standalone stream); empty when the server was unreachable. */
  private Optional<HttpResponse<InputStream>> get(Optional<String> lastEventId) {
    try {
      return Optional.of(
          exchange(
              () -> {
                HttpRequest.Builder b = request(false).header("Accept", "text/event-stream").GET();
                lastEventId.ifPresent(id -> b.header("Last-Event-ID", id));
                return b.build();
              },
              true,
              true));
    } catch (McpException e) {
      LOG.debug("mcp server {}: GET failed: {}", server.name(), e.getMessage());
      return Optional.empty();
    }
  }

  private void openGetStream() {
    if (getStream != null && getStream.isAlive()) {
      return;
    }
    getStream =
        Thread.ofVirtual().name("mcp-http-get-" + server.name()).start(streams::runGetStream);
  }

  private McpException lost(String why) {
    McpException e = error(McpDiagnostic.MCP_DISCONNECTED, why, null);
    if (!closing.get() && lostFired.compareAndSet(false, true)) {
      onLost.lost(e);
    }
    return e;
  }

  private McpException error(McpDiagnostic d, String message, Throwable cause) {
    return new McpException(d, server.name(), message, McpHttp.fixFor(d), cause);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(this::shutdown).subscribeOn(Schedulers.boundedElastic()).then();
  }

  @Override
  public void close() {
    shutdown();
  }

  private void shutdown() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    Thread g = getStream;
    if (g != null) {
      g.interrupt();
    }
    for (InputStream in : List.copyOf(open)) {
      try {
        in.close();
      } catch (IOException e) {
        LOG.debug("closing a stream of {}: {}", server.name(), e.toString());
      }
    }
    String s = sessionId;
    if (s != null) {
      try {
        HttpRequest.Builder b =
            HttpRequest.newBuilder(server.url())
                .timeout(limits.stopGrace())
                .header(SESSION, s)
                .DELETE();
        server.headers().forEach(b::header);
        auth.headers().forEach(b::setHeader);
        http.send(b.build(), HttpResponse.BodyHandlers.discarding());
      } catch (IOException | RuntimeException e) {
        LOG.debug("DELETE of session at {}: {}", server.name(), e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    http.shutdownNow();
  }

  @Override
  public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
    return json.convertValue(data, typeRef);
  }

  /** A server pinned to one 2025 revision is offered that revision alone in the handshake. */
  @Override
  public java.util.List<String> protocolVersions() {
    return server.protocol().handshakeVersions(McpClientTransport.super.protocolVersions());
  }
}
