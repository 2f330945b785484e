package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.WAIT;
import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolRegistry;
import dev.flows.mcp.testkit.NodePeers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Interop with the reference server we did not write, over both transports, in one pool. */
class ServerEverythingTest {
  private String node;
  private Path script;

  @BeforeEach
  void needsNodeAndThePackage() {
    Optional<String> n = NodePeers.node();
    Optional<Path> s = NodePeers.serverEverything();
    assumeTrue(n.isPresent() && s.isPresent(), NodePeers.SKIP);
    node = n.get();
    script = s.get();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void echoAndSum(McpPool pool, String server) throws Exception {
    assertThat(pool.registry().find(server, "echo")).isPresent();
    assertThat(pool.registry().find(server, "get-sum")).isPresent();
    assertThat(get(pool.call(server + "/echo", Map.of("message", "hello " + server))).text())
        .contains("hello " + server);
    assertThat(get(pool.call(server + "/get-sum", Map.of("a", 19, "b", 23))).text()).contains("42");
  }

  @Test
  void theReferenceServerWorksOverStdioAndStreamableHttpInOnePool() throws Exception {
    int port = freePort();
    ProcessBuilder pb =
        new ProcessBuilder(node, script.toString(), "streamableHttp")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("PORT", String.valueOf(port));
    Process http = pb.start();
    try {
      await().atMost(WAIT).until(() -> listening(port) || !http.isAlive());
      assertThat(http.isAlive()).as("server-everything streamableHttp started").isTrue();
      McpServerConfig stdio =
          new McpServerConfig.Stdio(
              "local",
              node,
              List.of(script.toString(), "stdio"),
              List.of("PATH", "HOME"),
              Map.of(),
              Optional.empty());
      McpServerConfig remote =
          new McpServerConfig.Http(
              "remote",
              URI.create("http://127.0.0.1:" + port + "/mcp"),
              Map.of(),
              new McpAuth.None());
      try (McpPool pool =
          new McpPool(
              List.of(stdio, remote),
              McpClientConfig.DEFAULTS,
              McpCredentials.fromEnvironment(),
              new ToolRegistry())) {
        get(pool.connectAll());
        assertThat(pool.connections().values()).allMatch(c -> c.state().wire().equals("connected"));
        echoAndSum(pool, "local");
        echoAndSum(pool, "remote");
        pool.close();
        assertThat(pool.registry().all()).isEmpty();
        assertThat(pool.connections().values())
            .extracting(McpTransportPort::state)
            .allMatch(s -> s.terminal());
      }
    } finally {
      http.descendants().forEach(ProcessHandle::destroyForcibly);
      http.destroyForcibly().waitFor();
    }
  }
}
