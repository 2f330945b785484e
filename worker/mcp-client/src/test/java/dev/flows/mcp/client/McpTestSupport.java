package dev.flows.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Waiting helpers with generous bounds for a loaded 2-core machine. */
final class McpTestSupport {
  static final Duration WAIT = Duration.ofSeconds(60);

  private McpTestSupport() {}

  /** A connection (not yet connected) to {@code server} with its own tool registry. */
  static McpConnection connection(
      dev.flows.kernel.mcp.McpServerConfig server, dev.flows.kernel.mcp.McpClientConfig limits) {
    return new McpConnection(
        server.name(),
        limits,
        McpTransports.factory(server, limits, McpCredentials.fromEnvironment()),
        new dev.flows.kernel.mcp.ToolRegistry(),
        new java.util.SplittableRandom(3));
  }

  static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  static McpException failureOf(CompletableFuture<?> f) {
    try {
      f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(McpException.class);
      return (McpException) e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("expected a failure");
  }

  static McpDiagnostic diagnosticOf(CompletableFuture<?> f) {
    return failureOf(f).diagnostic();
  }
}
