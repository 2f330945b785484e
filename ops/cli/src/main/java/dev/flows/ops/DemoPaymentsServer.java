package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The example payments server of {@code flows demo}, run as a child process from the checkout
 * ({@value #LAUNCHER}) so that the CLI carries no example code. It is given the bearer token in its
 * environment and is ready once it prints {@code listening on URL}. {@code flows demo --agent}
 * starts the scripted model server ({@value #MODEL_LAUNCHER}) the same way.
 */
final class DemoPaymentsServer implements AutoCloseable {
  /** The launcher, relative to the checkout. */
  static final String LAUNCHER = "flows-examples/bin/payments-server";

  /** The scripted model server's launcher, relative to the checkout. */
  static final String MODEL_LAUNCHER = "flows-examples/bin/model-server";

  /** Where the example server reads the bearer token clients must send. */
  static final String TOKEN_ENV = "PAYMENTS_TOKEN";

  /** Long enough for the launcher to build the example servers on a fresh clone. */
  static final Duration READY_WITHIN = Duration.ofMinutes(5);

  private static final Duration STOP_WITHIN = Duration.ofSeconds(5);
  private static final String READY = "listening on ";

  private final Process process;
  private final URI endpoint;

  private DemoPaymentsServer(Process process, URI endpoint) {
    this.process = process;
    this.endpoint = endpoint;
  }

  URI endpoint() {
    return endpoint;
  }

  /**
   * Starts the server of checkout {@code root} on {@code port} (0: a free one), behind {@code
   * token}.
   */
  static DemoPaymentsServer start(Path root, int port, String token) {
    URI url = URI.create("http://127.0.0.1:" + port + "/mcp");
    return launch(
        root.resolve(LAUNCHER),
        List.of(Integer.toString(port)),
        java.util.Map.of(TOKEN_ENV, token),
        url,
        "the example payments server");
  }

  /** Starts the scripted model server of checkout {@code root} answering from {@code script}. */
  static DemoPaymentsServer startModel(Path root, Path script) {
    return launch(
        root.resolve(MODEL_LAUNCHER),
        List.of(script.toString(), "0"),
        java.util.Map.of(),
        URI.create("http://127.0.0.1:0/v1"),
        "the scripted model server");
  }

  private static DemoPaymentsServer launch(
      Path launcher, List<String> args, java.util.Map<String, String> env, URI url, String what) {
    if (!Files.isRegularFile(launcher)) {
      throw cannotStart(
          what, url, launcher + " is missing", "run ./flows demo from a flows checkout");
    }
    List<String> command = new java.util.ArrayList<>(List.of("bash", launcher.toString()));
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process process;
    try {
      process = pb.start();
    } catch (IOException e) {
      throw cannotStart(what, url, e.getMessage(), "install bash, or run the demo where it is");
    }
    CompletableFuture<URI> ready = readiness(process);
    try {
      return new DemoPaymentsServer(
          process, ready.get(READY_WITHIN.toMillis(), TimeUnit.MILLISECONDS));
    } catch (ExecutionException | TimeoutException e) {
      stop(process);
      String why =
          e instanceof ExecutionException ? e.getCause().getMessage() : "not ready in time";
      throw cannotStart(
          what, url, why, "give another port with `flows demo --port PORT` (0 picks a free one)");
    } catch (InterruptedException e) {
      stop(process);
      Thread.currentThread().interrupt();
      throw cannotStart(what, url, "interrupted", "run the demo again");
    }
  }

  /**
   * The endpoint the server prints once it listens, or the last line it printed before it ended;
   * its output is read to the end so that it never blocks on a full pipe.
   */
  private static CompletableFuture<URI> readiness(Process process) {
    CompletableFuture<URI> ready = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              String last = "it ended";
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                  if (!ready.isDone() && line.startsWith(READY)) {
                    ready.complete(URI.create(line.substring(READY.length()).strip()));
                  } else if (!line.isBlank()) {
                    last = line.strip();
                  }
                }
              } catch (IOException | UncheckedIOException e) {
                last = e.getMessage();
              }
              ready.completeExceptionally(new IllegalStateException(last));
            },
            "demo-payments-server-output");
    reader.setDaemon(true);
    reader.start();
    return ready;
  }

  private static FlowsException cannotStart(String what, URI url, String why, String fix) {
    return new FlowsException(
        ErrorCode.MCP_UNREACHABLE,
        "cannot start " + what + " on port " + url.getPort() + ": " + why,
        url.toString(),
        fix);
  }

  private static void stop(Process process) {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(STOP_WITHIN.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop(process);
  }
}
