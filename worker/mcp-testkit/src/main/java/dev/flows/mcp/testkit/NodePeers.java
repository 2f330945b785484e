package dev.flows.mcp.testkit;

import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Finds node and the third-party servers {@code ops/ci/install-node-peers} installs (in {@code
 * .ci/cache/node-peers} of the repository, or under {@code $FLOWS_NODE_PEERS}).
 */
public final class NodePeers {
  public static final String SKIP =
      "node or @modelcontextprotocol/server-everything is absent: run ops/ci/install-node-peers"
          + " (or set FLOWS_NODE_PEERS) to run the interop tests";

  public static final String SKIP_TASK_SERVER =
      "node or @modelcontextprotocol/sdk is absent: run ops/ci/install-node-peers"
          + " (or set FLOWS_NODE_PEERS) to run the TypeScript task server interop tests";

  private NodePeers() {}

  public static Optional<String> node() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(dir, "node");
      if (!dir.isEmpty() && Files.isExecutable(p)) {
        return Optional.of(p.toString());
      }
    }
    return Optional.empty();
  }

  public static Optional<Path> root() {
    String env = System.getenv("FLOWS_NODE_PEERS");
    if (env != null && !env.isBlank()) {
      return Optional.of(Path.of(env));
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("ops/ci/install-node-peers"))) {
        return Optional.of(p.resolve(".ci/cache/node-peers"));
      }
    }
    return Optional.empty();
  }

  /** The entry script of server-everything, when installed. */
  public static Optional<Path> serverEverything() {
    return root()
        .map(r -> r.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
        .filter(Files::isRegularFile);
  }

  /** The repository's task server script ({@code ops/ci/peers/task-server.mjs}), when found. */
  public static Optional<Path> taskServerScript() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path script = p.resolve("ops/ci/peers/task-server.mjs");
      if (Files.isRegularFile(script)) {
        return Optional.of(script);
      }
    }
    return Optional.empty();
  }

  /**
   * The TypeScript SDK's 2025-11-25 experimental-tasks server ({@code ops/ci/peers/task-server.mjs}
   * on the installed {@code @modelcontextprotocol/sdk}) as a stdio server config pinned to
   * 2025-11-25, appending what it saw to {@code events} (one JSON line per task created, completed
   * or ended otherwise); empty when node, the SDK or the script is absent (skip with {@link
   * #SKIP_TASK_SERVER}).
   */
  public static Optional<McpServerConfig.Stdio> tsTaskServer(String name, Path events) {
    return tsTaskServerCommand(events)
        .map(
            cmd ->
                new McpServerConfig.Stdio(
                    name,
                    cmd.getFirst(),
                    cmd.subList(1, cmd.size()),
                    List.of(),
                    Map.of(),
                    Optional.empty(),
                    McpProtocol.V2025_11_25));
  }

  /**
   * The same server over stateless Streamable HTTP on a free port of 127.0.0.1, as a process this
   * test owns (so it outlives the workers that call it and keeps its in-memory tasks); empty when
   * the peer is absent (skip with {@link #SKIP_TASK_SERVER}).
   */
  public static Optional<TsTaskHttpServer> tsTaskServerHttp(Path events) throws IOException {
    Optional<List<String>> cmd = tsTaskServerCommand(events);
    if (cmd.isEmpty()) {
      return Optional.empty();
    }
    List<String> args = new ArrayList<>(cmd.get());
    args.add("--http=0");
    Process p = new ProcessBuilder(args).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String url = out.readLine();
    if (url == null || !url.startsWith("http://")) {
      p.destroyForcibly();
      throw new IOException("the TypeScript task server printed no URL: " + url);
    }
    return Optional.of(new TsTaskHttpServer(p, URI.create(url.strip())));
  }

  /** The TypeScript task server over HTTP at {@code url}; closing it stops the process. */
  public record TsTaskHttpServer(Process process, URI url) implements AutoCloseable {
    @Override
    public void close() throws InterruptedException {
      process.destroy();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** node, the script and its flags, when node, the SDK and the script are all present. */
  private static Optional<List<String>> tsTaskServerCommand(Path events) {
    Optional<Path> sdk =
        root()
            .filter(
                r ->
                    Files.isRegularFile(
                        r.resolve("node_modules/@modelcontextprotocol/sdk/package.json")));
    Optional<Path> script = taskServerScript();
    Optional<String> node = node();
    if (sdk.isEmpty() || script.isEmpty() || node.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        List.of(
            node.get(),
            script.get().toString(),
            "--peers=" + sdk.get().toAbsolutePath(),
            "--events=" + events.toAbsolutePath()));
  }
}
