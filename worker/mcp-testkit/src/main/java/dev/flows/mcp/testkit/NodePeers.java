package dev.flows.mcp.testkit;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds node and the third-party servers {@code ops/ci/install-node-peers} installs (in {@code
 * .ci/cache/node-peers} of the repository, or under {@code $FLOWS_NODE_PEERS}).
 */
public final class NodePeers {
  public static final String SKIP =
      "node or @modelcontextprotocol/server-everything is absent: run ops/ci/install-node-peers"
          + " (or set FLOWS_NODE_PEERS) to run the interop tests";

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
}
