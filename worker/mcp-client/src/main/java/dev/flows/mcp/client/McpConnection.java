package dev.flows.mcp.client;

import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.ConnectionState;
import dev.flows.kernel.mcp.ConnectionTransition;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.mcp.ToolDescriptor;
import dev.flows.kernel.mcp.ToolRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link McpTransportPort} over the SDK's client session and one of our transports. Owns the
 * connection state machine: every change goes through a declared {@link ConnectionTransition} under
 * one lock, and listeners are told after the lock is released. A lost transport moves to
 * reconnecting and a background thread retries with exponential backoff and jitter; each attempt
 * uses a fresh transport and session, so a dead one can never deliver into the new one (a
 * generation and an attempt number guard the callbacks).
 */
public final class McpConnection implements McpTransportPort {
  private static final Logger LOG = LoggerFactory.getLogger(McpConnection.class);

  private final String server;
  private final McpClientConfig limits;
  private final TransportFactory transports;
  private final ToolRegistry registry;
  private final RandomGenerator random;
  private final List<StateListener> listeners = new CopyOnWriteArrayList<>();
  private final SessionRequests requests;
  // Callers waiting for a connect or reconnect in flight to settle; see whenConnected().
  private final List<CompletableFuture<Void>> settling = new ArrayList<>();

  private final Object lock = new Object();
  private ConnectionState state = ConnectionState.DISCONNECTED;
  private long generation;
  // The connect attempt whose transport's loss counts: a reconnect makes several in one generation.
  private long attempt;
  private ProtocolSession session;
  private String protocolVersion = "";
  private Thread worker;
  private McpException lostDuringConnect;
  private volatile boolean elicitationDefaults;
  private volatile boolean liveInput;

  public McpConnection(
      String server,
      McpClientConfig limits,
      TransportFactory transports,
      ToolRegistry registry,
      RandomGenerator random) {
    this.server = server;
    this.limits = limits;
    this.transports = transports;
    this.registry = registry;
    this.random = random;
    this.requests = new SessionRequests(server, registry, this::connectedSession);
  }

  /**
   * Declares the elicitation capability and answers every form elicitation by accepting the
   * requested schema's defaults (SEP-1034), for unattended callers that want a server's defaults
   * rather than a refusal. Without it the client declares no elicitation capability. Takes effect
   * at the next connect.
   */
  public McpConnection answerElicitationsWithDefaults() {
    elicitationDefaults = true;
    return this;
  }

  /**
   * On a 2025 session, declares form and URL elicitation and routes each {@code elicitation/create}
   * to the one call in flight: a call's {@code CallOptions.liveInput} answers it, a durable call
   * without one declines it at once (see {@link LiveElicitations}). For the engine's sessions.
   * Takes effect at the next connect.
   */
  public McpConnection routeLiveInputToCalls() {
    liveInput = true;
    return this;
  }

  @Override
  public String server() {
    return server;
  }

  @Override
  public ConnectionState state() {
    synchronized (lock) {
      return state;
    }
  }

  @Override
  public List<ToolDescriptor> tools() {
    return registry.tools(server);
  }

  @Override
  public void addToolListener(ToolRegistry.Listener listener) {
    registry.addListener(
        new ToolRegistry.Listener() {
          @Override
          public void added(ToolDescriptor tool) {
            if (tool.server().equals(server)) {
              listener.added(tool);
            }
          }

          @Override
          public void removed(ToolDescriptor tool) {
            if (tool.server().equals(server)) {
              listener.removed(tool);
            }
          }
        });
  }

  @Override
  public void addStateListener(StateListener listener) {
    listeners.add(listener);
  }

  @Override
  public CompletableFuture<Void> connect() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    long gen;
    synchronized (lock) {
      if (state != ConnectionState.DISCONNECTED) {
        return CompletableFuture.failedFuture(
            disconnected("connect needs a disconnected connection but it is " + state.wire()));
      }
      move(ConnectionTransition.CONNECT);
      gen = ++generation;
      worker =
          Thread.ofPlatform()
              .daemon()
              .name("mcp-connect-" + server)
              .unstarted(() -> runConnect(gen, done));
      worker.start();
    }
    fire(ConnectionTransition.CONNECT, Optional.empty());
    done.whenComplete(
        (v, e) -> {
          if (done.isCancelled()) {
            stop();
          }
        });
    return done;
  }

  /**
   * Completes when this connection is connected: at once if it is, or when the connect or reconnect
   * in flight succeeds. Fails with {@code mcp_disconnected} when the connection is, or ends up,
   * disconnected or closed. Lets callers that find a connection busy connecting join that attempt
   * instead of failing (a worker's concurrent first calls, calls during a reconnect).
   */
  public CompletableFuture<Void> whenConnected() {
    synchronized (lock) {
      return switch (state) {
        case CONNECTED -> CompletableFuture.completedFuture(null);
        case CONNECTING, RECONNECTING -> {
          CompletableFuture<Void> f = new CompletableFuture<>();
          settling.add(f);
          yield f;
        }
        case DISCONNECTED, CLOSED ->
            CompletableFuture.failedFuture(disconnected("connection is " + state.wire()));
      };
    }
  }

  /** After every transition: wakes the waiters of whenConnected() once the state has settled. */
  private void settle() {
    List<CompletableFuture<Void>> woken;
    ConnectionState now;
    synchronized (lock) {
      now = state;
      if (now == ConnectionState.CONNECTING || now == ConnectionState.RECONNECTING) {
        return;
      }
      woken = List.copyOf(settling);
      settling.clear();
    }
    for (CompletableFuture<Void> f : woken) {
      if (now == ConnectionState.CONNECTED) {
        f.complete(null);
      } else {
        f.completeExceptionally(disconnected("connection is " + now.wire()));
      }
    }
  }

  private void runConnect(long gen, CompletableFuture<Void> done) {
    try {
      establish(gen, ConnectionTransition.CONNECTED_OK);
      done.complete(null);
    } catch (McpException e) {
      boolean moved = false;
      synchronized (lock) {
        if (generation == gen && state == ConnectionState.CONNECTING) {
          move(ConnectionTransition.CONNECT_FAILED);
          moved = true;
        }
      }
      if (moved) {
        fire(ConnectionTransition.CONNECT_FAILED, Optional.of(e.diagnostic()));
      }
      done.completeExceptionally(e);
    }
  }

  /**
   * One attempt: fresh transport and session (2026-07-28 when the server answers {@code
   * server/discover} and the config allows it, else a 2025 handshake), list tools, register them
   * and move to connected with {@code success}. On any failure the attempt's session is closed
   * before the exception leaves, so nothing outlives a failed attempt.
   */
  private void establish(long gen, ConnectionTransition success) {
    long a;
    synchronized (lock) {
      if (generation != gen) {
        throw disconnected("stopped while connecting");
      }
      a = ++attempt;
      lostDuringConnect = null;
      // Pending now, an interrupt is an earlier attempt's loss (stop() ends the generation first).
      Thread.interrupted();
    }
    ProtocolSession s =
        ProtocolSession.open(
            server,
            limits,
            transports,
            elicitationDefaults,
            liveInput,
            why -> onLost(gen, a, why),
            () -> refreshLater(gen));
    synchronized (lock) {
      if (generation != gen) {
        s.close();
        throw disconnected("stopped while connecting");
      }
      session = s;
    }
    try {
      s.start();
      List<ToolDescriptor> tools = s.listTools();
      synchronized (lock) {
        if (generation != gen || state != success.from()) {
          throw disconnected("stopped while connecting");
        }
        protocolVersion = s.protocolVersion();
        registry.replace(server, tools);
        move(success);
      }
      fire(success, Optional.empty());
    } catch (McpException e) {
      s.close();
      throw e;
    } catch (RuntimeException e) {
      s.close();
      throw handshakeFailure(e);
    }
  }

  /** The revision the server answered in at the last connect ("" before one). */
  public String protocolVersion() {
    synchronized (lock) {
      return protocolVersion;
    }
  }

  private void refreshLater(long gen) {
    Thread.ofPlatform().daemon().name("mcp-refresh-" + server).start(() -> refresh(gen));
  }

  private void refresh(long gen) {
    ProtocolSession s;
    synchronized (lock) {
      if (generation != gen || state != ConnectionState.CONNECTED || session == null) {
        return;
      }
      s = session;
    }
    try {
      List<ToolDescriptor> tools = s.listTools();
      synchronized (lock) {
        if (generation == gen && state == ConnectionState.CONNECTED) {
          registry.replace(server, tools);
        }
      }
    } catch (RuntimeException e) {
      LOG.warn(
          "mcp server {}: refreshing tools after list_changed failed: {}", server, e.toString());
    }
  }

  private void onLost(long gen, long a, McpException why) {
    boolean moved = false;
    ProtocolSession old = null;
    synchronized (lock) {
      // A failed attempt's transport may report after the next attempt began, or connected.
      if (generation != gen || attempt != a) {
        return;
      }
      if (state == ConnectionState.CONNECTING || state == ConnectionState.RECONNECTING) {
        lostDuringConnect = why;
        if (worker != null) {
          worker.interrupt();
        }
        return;
      }
      if (state != ConnectionState.CONNECTED) {
        return;
      }
      move(ConnectionTransition.LOST);
      long next = ++generation;
      old = session;
      session = null;
      registry.removeServer(server);
      worker =
          Thread.ofPlatform()
              .daemon()
              .name("mcp-reconnect-" + server)
              .unstarted(() -> reconnect(next));
      worker.start();
      moved = true;
    }
    LOG.warn("mcp server {} lost: {}", server, why.getMessage());
    requests.failPending(why);
    if (old != null) {
      old.close();
    }
    if (moved) {
      fire(ConnectionTransition.LOST, Optional.of(why.diagnostic()));
    }
  }

  private void reconnect(long gen) {
    McpException last = null;
    for (int attempt = 1; attempt <= limits.maxReconnectAttempts(); attempt++) {
      Duration delay = limits.backoff(attempt, random.nextDouble(-1.0, 1.0));
      try {
        Thread.sleep(delay);
      } catch (InterruptedException e) {
        // Two senders: stop(), which also ends this generation (checked below), and onLost() for a
        // server that died during the previous attempt's handshake, whose interrupt can still be
        // pending here. Returning on the latter left the connection reconnecting for ever.
      }
      synchronized (lock) {
        if (generation != gen || state != ConnectionState.RECONNECTING) {
          return;
        }
      }
      try {
        establish(gen, ConnectionTransition.RECONNECTED);
        return;
      } catch (McpException e) {
        last = e;
        LOG.info("mcp server {}: reconnect attempt {} failed: {}", server, attempt, e.getMessage());
      }
    }
    boolean moved = false;
    synchronized (lock) {
      if (generation == gen && state == ConnectionState.RECONNECTING) {
        move(ConnectionTransition.GAVE_UP);
        moved = true;
      }
    }
    if (moved) {
      fire(
          ConnectionTransition.GAVE_UP,
          Optional.of(last == null ? McpDiagnostic.MCP_DISCONNECTED : last.diagnostic()));
    }
  }

  @Override
  public CompletableFuture<ToolCallResult> callTool(
      String tool, Map<String, Object> arguments, Map<String, Object> meta) {
    return callTool(tool, arguments, meta, false);
  }

  @Override
  public CompletableFuture<ToolCallResult> callTool(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, boolean reissue) {
    return requests.callTool(tool, arguments, meta, reissue);
  }

  @Override
  public CompletableFuture<ToolCallOutcome> call(
      String tool, Map<String, Object> arguments, Map<String, Object> meta, CallOptions options) {
    return requests.call(tool, arguments, meta, options);
  }

  @Override
  public CompletableFuture<McpTask> getTask(String tool, String taskId) {
    return requests.getTask(tool, taskId);
  }

  @Override
  public CompletableFuture<Void> updateTask(
      String taskId, Map<String, com.fasterxml.jackson.databind.JsonNode> inputResponses) {
    return requests.updateTask(taskId, inputResponses);
  }

  @Override
  public CompletableFuture<Void> cancelTask(String taskId) {
    return requests.cancelTask(taskId);
  }

  /** The current session; {@code mcp_disconnected} naming {@code what} unless connected. */
  private ProtocolSession connectedSession(String what) {
    synchronized (lock) {
      if (state != ConnectionState.CONNECTED) {
        throw disconnected("cannot " + what + ": connection is " + state.wire());
      }
      return session;
    }
  }

  @Override
  public void stop() {
    ConnectionTransition t;
    ProtocolSession s;
    Thread w;
    synchronized (lock) {
      Optional<ConnectionTransition> stop = ConnectionTransition.stopFrom(state);
      if (stop.isEmpty()) {
        return;
      }
      t = stop.get();
      move(t);
      generation++;
      s = session;
      session = null;
      w = worker;
      worker = null;
    }
    if (w != null) {
      w.interrupt();
    }
    registry.removeServer(server);
    requests.failPending(disconnected("connection stopped"));
    if (s != null) {
      s.close();
    }
    if (w != null && w != Thread.currentThread()) {
      try {
        // A connect in flight closes its own transport on the way out; wait for that.
        w.join(limits.stopGrace().multipliedBy(3).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    fire(t, Optional.empty());
  }

  /** Applies {@code t}; callers hold the lock. */
  private void move(ConnectionTransition t) {
    state = t.apply(state);
  }

  private void fire(ConnectionTransition t, Optional<McpDiagnostic> cause) {
    settle();
    for (StateListener l : listeners) {
      try {
        l.onTransition(t, cause);
      } catch (RuntimeException e) {
        LOG.warn("state listener of {} failed", server, e);
      }
    }
  }

  private McpException disconnected(String why) {
    return McpFailures.disconnected(server, why);
  }

  private McpException handshakeFailure(Throwable e) {
    McpException lost;
    synchronized (lock) {
      lost = lostDuringConnect;
    }
    return McpFailures.handshake(server, e, Optional.ofNullable(lost), limits.connectTimeout());
  }
}
