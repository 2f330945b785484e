package dev.flows.embed;

import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.mcp.testkit.JettyMcpServer;
import dev.flows.sdk.runtime.Inventory;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Preflight runs once per registered flow and its inventory serves every start, until refreshed on
 * demand or by a run that met a tool the inventory lacks. The server is an HTTP one in this JVM, so
 * its tools can change between preflights and its sessions can be counted.
 */
class InventoryCacheTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private JettyMcpServer server;
  private McpServerConfig web;
  private TestDatabase.Fresh db;

  @BeforeEach
  void startServer() throws Exception {
    server = new JettyMcpServer(Optional.empty()).start();
    web = new McpServerConfig.Http("web", server.url(), Map.of(), new McpAuth.None());
    db = TestDatabase.fresh("embed_inventory");
  }

  @AfterEach
  void stopServer() throws Exception {
    server.close();
  }

  /**
   * Sessions opened on the server: an initialize is the only POST without a session id but for the
   * {@code server/discover} probe (2026-07-28) that comes before it.
   */
  private long sessionsOpened() {
    return server.requests().stream()
        .filter(r -> r.startsWith("POST ") && !r.contains("mcp-session-id="))
        .filter(r -> !r.contains("mcp-method=server/discover;"))
        .count();
  }

  @Test
  void startsReuseOnePreflightUntilTheInventoryIsRefreshed() {
    try (Flows flows =
        on(db).register(new TestFlows.Grower()).mcpServer(McpServer.of(web)).build()) {
      assertThat(sessionsOpened()).as("build connects to no server").isZero();
      flows.start(
          TestFlows.Grower.class, TestFlows.json(Map.of("call", "echo")), StartOptions.key("a"));
      flows.start(
          TestFlows.Grower.class, TestFlows.json(Map.of("call", "echo")), StartOptions.key("b"));
      flows.start(TestFlows.Grower.class, TestFlows.json(Map.of("call", "echo")));
      assertThat(sessionsOpened()).isEqualTo(1);

      assertThat(
              new Inventory(flows.refreshInventory(TestFlows.Grower.class)).hasTool("web", "echo"))
          .isTrue();
      flows.start(
          TestFlows.Grower.class, TestFlows.json(Map.of("call", "echo")), StartOptions.key("c"));
      assertThat(sessionsOpened()).isEqualTo(2);
    }
  }

  @Test
  void aRunThatMetAToolTheInventoryLackedMakesTheNextStartPreflightAgain() throws Exception {
    try (Flows flows =
        withWorker(on(db).register(new TestFlows.Grower()).mcpServer(McpServer.of(web))).build()) {
      String added =
          flows
              .start(
                  TestFlows.Grower.class,
                  TestFlows.json(Map.of("add", "late")),
                  StartOptions.key("add"))
              .result(WAIT)
              .asText();
      assertThat(added).contains("late");
      assertThat(new Inventory(flows.inventory(TestFlows.Grower.class)).hasTool("web", "late"))
          .as("the inventory frozen before the tool was added")
          .isFalse();

      RunFailedException unknown =
          catchThrowableOfType(
              RunFailedException.class,
              () ->
                  flows
                      .start(
                          TestFlows.Grower.class,
                          TestFlows.json(Map.of("call", "late")),
                          StartOptions.key("first"))
                      .result(WAIT));
      assertThat(unknown.code()).isEqualTo(ErrorCode.MCP_UNKNOWN_TOOL.wire());

      assertThat(
              flows
                  .start(
                      TestFlows.Grower.class,
                      TestFlows.json(Map.of("call", "late")),
                      StartOptions.key("second"))
                  .result(WAIT)
                  .asText())
          .isEqualTo("late");
      assertThat(new Inventory(flows.inventory(TestFlows.Grower.class)).hasTool("web", "late"))
          .isTrue();
    }
  }
}
