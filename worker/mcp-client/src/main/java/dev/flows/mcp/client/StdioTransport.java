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
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The SDK's client transport over a child process's stdin/stdout, written here because the SDK's
 * own copies the whole parent environment, stops when stderr closes, never closes stdin and kills
 * only the direct child. The child is started in its own session ({@code setsid}) so the whole
 * process group can be signalled; its descendants are also reaped one by one for the ones that left
 * the group.
 */
public final class StdioTransport implements McpClientTransport, CancellableTransport {
  private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);
  private static final Path SETSID = Path.of("/usr/bin/setsid");
  private static final Path KILL = Path.of("/bin/kill");

  private final McpServerConfig.Stdio server;
  private final McpClientConfig limits;
  private final McpJsonMapper json;
  private final LossListener onLost;
  private final StderrBuffer stderr;
  private final AtomicBoolean closing = new AtomicBoolean();
  private final AtomicBoolean lostFired = new AtomicBoolean();
  private final Object writeLock = new Object();
  private final SentCalls sent = new SentCalls();
  private volatile Process process;
  private volatile OutputStream stdin;
  private volatile boolean ownGroup;
  private volatile McpException startFailure;

  public StdioTransport(
      McpServerConfig.Stdio server, McpClientConfig limits, McpJsonMapper json, LossListener lost) {
    this.server = server;
    this.limits = limits;
    this.json = json;
    this.onLost = lost;
    this.stderr = new StderrBuffer(limits.stderrBufferBytes());
  }

  /** The child's environment: empty, plus allowlisted parent variables, plus explicit values. */
  static Map<String, String> childEnvironment(
      McpServerConfig.Stdio server, Map<String, String> parent) {
    Map<String, String> env = new java.util.TreeMap<>();
    for (String name : server.envAllowlist()) {
      String v = parent.get(name);
      if (v != null) {
        env.put(name, v);
      }
    }
    env.putAll(server.env());
    return env;
  }

  /** The newest part of the server's stderr (at most the configured buffer). */
  public String stderrTail() {
    return stderr.tail();
  }

  /** The child's pid, once started. */
  public Optional<Long> pid() {
    Process p = process;
    return p == null ? Optional.empty() : Optional.of(p.pid());
  }

  @Override
  public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    // Started on the subscriber's thread: the SDK session sends initialize right after subscribing
    // and does not wait for connect, so the process must exist by then.
    return Mono.fromRunnable(
        () -> {
          try {
            start(handler);
          } catch (McpException e) {
            startFailure = e;
            throw e;
          }
        });
  }

  private void start(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    Process p = process != null ? process : spawn();
    Thread.ofPlatform()
        .daemon()
        .name("mcp-stdio-out-" + server.name())
        .start(() -> readStdout(p, handler));
  }

  /** What a {@code server/discover} probe of a freshly started child found. */
  sealed interface Probe {
    /** It answered: it speaks 2026-07-28, over the SDK's transport on the same process. */
    record Modern(TransportFactory.ModernTransport transport) implements Probe {}

    /** It did not: this transport, process already started, goes on with the 2025 handshake. */
    record Legacy(StdioTransport transport) implements Probe {}
  }

  /**
   * Starts the child and asks it {@code server/discover} (the stdio backward-compatibility probe of
   * 2026-07-28). Any answer but a result listing 2026-07-28, or none within {@code wait}, means a
   * 2025 server, which is then initialized on the same process, so a server is started once.
   */
  static Probe probe(
      McpServerConfig.Stdio server, McpClientConfig limits, LossListener lost, Duration wait) {
    return probe(server, limits, lost, wait, t -> {});
  }

  /**
   * As above; {@code started} runs between the child's start and the request (tests order a child's
   * death there). The child's loss is held until the probe decides (see {@link HeldLoss}).
   */
  static Probe probe(
      McpServerConfig.Stdio server,
      McpClientConfig limits,
      LossListener lost,
      Duration wait,
      java.util.function.Consumer<StdioTransport> started) {
    HeldLoss held = new HeldLoss(lost);
    StdioTransport t = new StdioTransport(server, limits, Json.MAPPER, held);
    Process p = t.spawn();
    started.accept(t);
    String id = "flows-discover-" + p.pid();
    String request =
        "{\"jsonrpc\":\"2.0\",\"id\":\""
            + id
            + "\",\"method\":\"server/discover\",\"params\":{\"_meta\":{"
            + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{},"
            + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"flows\",\"version\":\"0.1.0\"}}}}\n";
    boolean modern = false;
    try {
      synchronized (t.writeLock) {
        t.stdin.write(request.getBytes(StandardCharsets.UTF_8));
        t.stdin.flush();
      }
      modern = ProbeReader.answersModern(p.getInputStream(), id, wait, limits.maxResultBytes());
    } catch (IOException e) {
      // Silent, or its pipe broke: this process's stream may be half read, so a 2025 handshake
      // starts a new one.
      LOG.debug("mcp server {}: discover probe failed: {}", server.name(), e.toString());
      held.discard();
      t.terminate();
      return new Probe.Legacy(new StdioTransport(server, limits, Json.MAPPER, lost));
    }
    held.handOver();
    if (!modern) {
      return new Probe.Legacy(t);
    }
    return new Probe.Modern(modern(t, p, limits));
  }

  /**
   * The same child process for the SDK's 2026-07-28 stdio transport, which reads (through {@link
   * ModernStdout}, which bounds each line) and writes the lines itself (and sends {@code
   * notifications/cancelled} for a request given up); this class keeps the environment rules, the
   * stderr buffer, the loss report and the reaping of the group.
   */
  private static TransportFactory.ModernTransport modern(
      StdioTransport t, Process p, McpClientConfig limits) {
    ModernStdout stdout =
        new ModernStdout(t.server.name(), p.getInputStream(), limits.maxResultBytes());
    var sdk =
        io.modelcontextprotocol.modern.client.transport.StdioMcpClientTransport.builder(
                stdout, p.getOutputStream())
            // Lines past the limit never reach the SDK (ModernStdout answers for them).
            .inputMaxSize(limits.maxResultBytes())
            .shutdownTimeout(limits.stopGrace())
            .start();
    return new TransportFactory.ModernTransport(
        stdout.watching(sdk),
        () -> {
          t.terminate();
          sdk.close();
        });
  }

  /** Starts the child (its stderr drained, its exit reported); stdout is left to the caller. */
  private Process spawn() {
    Map<String, String> env = childEnvironment(server, System.getenv());
    String exe = resolve(server.command(), env).orElseThrow(() -> spawnFailed("not found", null));
    List<String> cmd = new ArrayList<>();
    ownGroup = Files.isExecutable(SETSID) && Files.isExecutable(KILL);
    if (ownGroup) {
      cmd.add(SETSID.toString());
    }
    cmd.add(exe);
    cmd.addAll(server.args());
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().clear();
    pb.environment().putAll(env);
    server.cwd().ifPresent(d -> pb.directory(new File(d)));
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw spawnFailed(e.getMessage(), e);
    }
    process = p;
    stdin = p.getOutputStream();
    LOG.info("mcp server {} started, pid {}", server.name(), p.pid());
    Thread.ofPlatform()
        .daemon()
        .name("mcp-stdio-err-" + server.name())
        .start(() -> drainStderr(p.getErrorStream()));
    p.onExit().thenRun(() -> fireLost(p));
    if (closing.get()) {
      // stop() raced with the start: it may have missed the process, so end it here.
      terminate();
    }
    return p;
  }

  private McpException spawnFailed(String why, Throwable cause) {
    return new McpException(
        McpDiagnostic.SPAWN_FAILED,
        server.name(),
        "cannot start " + server.command() + ": " + why,
        "check command, PATH (allowlist it), and cwd",
        cause);
  }

  /** Finds the executable the way a shell would, on the child's PATH if it has one. */
  static Optional<String> resolve(String command, Map<String, String> childEnv) {
    if (command.contains("/")) {
      return Files.isExecutable(Path.of(command)) ? Optional.of(command) : Optional.empty();
    }
    String path = childEnv.getOrDefault("PATH", System.getenv().getOrDefault("PATH", ""));
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, command);
        if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
          return Optional.of(candidate.toString());
        }
      }
    }
    return Optional.empty();
  }

  private void readStdout(Process p, Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
    try (InputStream out = p.getInputStream()) {
      BoundedLines lines = new BoundedLines(out, limits.maxResultBytes());
      Optional<BoundedLines.Line> next;
      while ((next = lines.next()).isPresent()) {
        StdoutLines.message(server.name(), next.get(), json, sent, limits.maxResultBytes())
            .ifPresent(
                msg -> {
                  sent.received(msg);
                  handler
                      .apply(Mono.just(msg))
                      .subscribe(m -> {}, e -> LOG.debug("handler failed", e));
                });
      }
    } catch (IOException e) {
      LOG.debug("mcp server {}: stdout closed: {}", server.name(), e.toString());
    }
    fireLost(p);
  }

  private void drainStderr(InputStream err) {
    byte[] buf = new byte[8192];
    try (err) {
      int n;
      while ((n = err.read(buf)) >= 0) {
        stderr.append(buf, 0, n);
        if (LOG.isDebugEnabled()) {
          LOG.debug(
              "mcp server {} stderr: {}",
              server.name(),
              new String(buf, 0, n, StandardCharsets.UTF_8).stripTrailing());
        }
      }
    } catch (IOException e) {
      LOG.debug("mcp server {}: stderr closed", server.name());
    }
    // A server may close stderr and go on working: nothing else depends on this stream.
  }

  /** Whether this transport has seen its child die (and so reported, or is reporting, it). */
  boolean lossSeen() {
    return lostFired.get();
  }

  private void fireLost(Process p) {
    if (closing.get() || !lostFired.compareAndSet(false, true)) {
      return;
    }
    String code = p.isAlive() ? "closed its stdout" : "exited with " + p.exitValue();
    String tail = stderr.tail();
    onLost.lost(
        new McpException(
            McpDiagnostic.MCP_DISCONNECTED,
            server.name(),
            "server process "
                + code
                + (tail.isBlank() ? "" : "; stderr tail: " + lastLines(tail, 5)),
            "see the server's stderr in the worker log"));
  }

  private static String lastLines(String s, int n) {
    String[] lines = s.strip().split("\n");
    return String.join(
        " | ", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - n), lines.length));
  }

  @Override
  public void cancel(McpSchema.CallToolRequest request, String reason) {
    sent.cancel(request, reason, this);
  }

  @Override
  public Mono<Void> sendMessage(JSONRPCMessage message) {
    return Mono.fromRunnable(
        () -> {
          sent.sent(message);
          if (startFailure != null) {
            throw startFailure;
          }
          OutputStream out = stdin;
          Process p = process;
          if (out == null || p == null || !p.isAlive() || closing.get()) {
            throw disconnected("server process is not running", null);
          }
          try {
            byte[] line =
                (json.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
            synchronized (writeLock) {
              out.write(line);
              out.flush();
            }
            if (SentCalls.isToolCall(message)) {
              McpWireTimings.sent();
            }
          } catch (IOException e) {
            throw disconnected("cannot write to the server: " + e.getMessage(), e);
          }
        });
  }

  private McpException disconnected(String why, Throwable cause) {
    return new McpException(McpDiagnostic.MCP_DISCONNECTED, server.name(), why, "", cause);
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(this::terminate).subscribeOn(Schedulers.boundedElastic()).then();
  }

  @Override
  public void close() {
    terminate();
  }

  /**
   * Close stdin, wait, SIGTERM the group, wait, SIGKILL the group. Descendants are snapshotted
   * first because once the leader is gone they are re-parented and no longer findable from it.
   */
  private void terminate() {
    closing.set(true);
    Process p = process;
    if (p == null) {
      return;
    }
    // Reaping must finish even when the caller was interrupted (stop() interrupts a connect).
    boolean interrupted = Thread.interrupted();
    try {
      reap(p);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void reap(Process p) {
    List<ProcessHandle> family = new ArrayList<>(p.descendants().toList());
    family.add(p.toHandle());
    synchronized (writeLock) {
      try {
        stdin.close();
      } catch (IOException e) {
        LOG.debug("closing stdin of {}: {}", server.name(), e.toString());
      }
    }
    Duration grace = limits.stopGrace();
    waitFor(p, grace);
    if (anyAlive(family)) {
      signal(p, "TERM", family, false);
      waitAll(family, grace);
    }
    if (anyAlive(family)) {
      LOG.warn("mcp server {} ignored SIGTERM; killing its process group", server.name());
      signal(p, "KILL", family, true);
      waitAll(family, grace);
    }
  }

  private void signal(Process p, String sig, List<ProcessHandle> family, boolean force) {
    if (ownGroup) {
      try {
        Process k =
            new ProcessBuilder(KILL.toString(), "-" + sig, "--", "-" + p.pid())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        k.waitFor(limits.stopGrace().toMillis(), TimeUnit.MILLISECONDS);
      } catch (IOException e) {
        LOG.debug("kill -{} of group {}: {}", sig, p.pid(), e.toString());
      } catch (InterruptedException e) {
        // Fall through to the per-process signals below.
      }
    }
    for (ProcessHandle h : family) {
      if (force) {
        h.destroyForcibly();
      } else {
        h.destroy();
      }
    }
  }

  private static boolean anyAlive(List<ProcessHandle> family) {
    return family.stream().anyMatch(ProcessHandle::isAlive);
  }

  private static void waitFor(Process p, Duration d) {
    try {
      p.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      // Bounded anyway; the caller escalates.
    }
  }

  private static void waitAll(List<ProcessHandle> family, Duration d) {
    long deadline = System.nanoTime() + d.toNanos();
    for (ProcessHandle h : family) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      try {
        h.onExit().get(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        // Timed out or failed: the caller checks liveness again.
      }
    }
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
