package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.testkit.Jvm;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** run, check and mcp through the CLI's real entry point, on Postgres, with a real MCP server. */
class FlowCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String FLOW =
"""
      import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Greet implements Flow {
        public FlowHeader header() {
          return FlowHeader.named("greet").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String who = f.step("who", () -> input.path("who").asText("world")).asText();
          String echoed = f.mcp("tools").tool("echo").call(Map.of("text", "hi " + who)).text();
          return JsonNodeFactory.instance.objectNode().put("said", echoed);
        }
      }
      """;

  private static TestDatabase.Fresh db;
  @TempDir static Path dir;
  private static Cli cli;
  private static Path flow;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("flow_cli");
    cli = new Cli(Map.of("FLOWS_HOME", dir.resolve("home").toString()));
    flow = Files.writeString(dir.resolve("greet.flow.java"), FLOW);
    JsonNode s = McpServerConfigJson.write(Jvm.stdioServer("tools", List.of(), Map.of()));
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\"tools\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + "}}}");
  }

  private int rootRuns() {
    return cli.run("--db", db.jdbcUrl(), "--json", "runs", "list").json().path("runs").size();
  }

  @Test
  void checkPreflightsWithoutWritingAndAnswersTheServersTools() {
    int before = rootRuns();
    Cli.Result r = cli.run("--json", "check", flow.toString());
    assertThat(r.exit()).isZero();
    assertThat(r.json().path("ok").asBoolean()).isTrue();
    assertThat(r.json().path("servers").path("tools").toString()).contains("echo");
    assertThat(rootRuns()).isEqualTo(before);
  }

  @Test
  void checkRefusesAnUndeclaredServerWithExit2AndEveryProblem() throws Exception {
    Path bad =
        Files.writeString(
            dir.resolve("bad.flow.java"),
            FLOW.replace("class Greet", "class Bad")
                .replace("mcp(\"tools\").build()", "mcp(\"tools\", \"stripe\").build()")
                .replace("f.mcp(\"tools\")", "f.mcp(\"linear\")"));
    Cli.Result r = cli.run("--json", "check", bad.toString());
    assertThat(r.exit()).isEqualTo(2);
    JsonNode problems = r.json().path("error").path("problems");
    assertThat(problems).hasSize(2);
    assertThat(problems.findValuesAsText("code")).containsOnly("mcp_undeclared_server");
    assertThat(r.errLines()).hasSize(2).allMatch(l -> l.startsWith("error mcp_undeclared_server:"));
  }

  @Test
  void checkRefusesAFlowThatDoesNotCompileInOneLine() throws Exception {
    Path bad = Files.writeString(dir.resolve("broken.flow.java"), FLOW.replace("return", "retur"));
    Cli.Result r = cli.run("check", bad.toString());
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.errLines().getFirst())
        .startsWith("error flow_invalid:")
        .doesNotContain("Exception");
  }

  @Test
  void runExecutesTheFlowWithProgressAndItsOutputAndIsIdempotentByKey() {
    Cli.Result r =
        cli.run(
            "--db",
            db.jdbcUrl(),
            "--json",
            "run",
            flow.toString(),
            "--input",
            "{\"who\":\"ada\"}",
            "--key",
            "k1");
    assertThat(r.exit()).as(r.err()).isZero();
    List<JsonNode> lines = r.jsonLines();
    assertThat(lines.getFirst().path("type").asText()).isEqualTo("run.started");
    JsonNode end = lines.getLast();
    assertThat(end.path("type").asText()).isEqualTo("run.end");
    assertThat(end.path("output").path("said").asText()).isEqualTo("hi ada");
    String run = lines.getFirst().path("run").asText();
    Cli.Result again =
        cli.run(
            "--db",
            db.jdbcUrl(),
            "--json",
            "run",
            flow.toString(),
            "--input",
            "{\"who\":\"ada\"}",
            "--key",
            "k1",
            "--detach");
    assertThat(again.exit()).isZero();
    assertThat(again.jsonLines().getFirst().path("run").asText()).isEqualTo(run);
    assertThat(again.jsonLines().getFirst().path("created").asBoolean()).isFalse();
  }

  @Test
  void runRefusesMalformedInputAndAMissingFileBeforeWritingAnything() {
    int before = rootRuns();
    assertThat(cli.run("--db", db.jdbcUrl(), "run", flow.toString(), "--input", "{nope").exit())
        .isEqualTo(2);
    Cli.Result missing =
        cli.run("--db", db.jdbcUrl(), "run", dir.resolve("x.flow.java").toString());
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.errLines().getFirst()).startsWith("error flow_not_found:");
    assertThat(rootRuns()).isEqualTo(before);
  }

  @Test
  void mcpToolsAndCallUseTheSameClientAndRefuseAnUnknownServer() {
    Cli.Result tools = cli.run("--json", "mcp", "tools", "--dir", dir.toString());
    assertThat(tools.exit()).isZero();
    assertThat(tools.json().path("servers").path("tools").has("echo")).isTrue();
    Cli.Result call =
        cli.run(
            "--json",
            "mcp",
            "call",
            "tools",
            "echo",
            "{\"text\":\"ping\"}",
            "--dir",
            dir.toString());
    assertThat(call.exit()).isZero();
    assertThat(call.json().path("content").path(0).path("text").asText()).isEqualTo("ping");
    Cli.Result unknown = cli.run("mcp", "call", "nope", "echo", "{}", "--dir", dir.toString());
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.errLines()).hasSize(1);
    assertThat(unknown.errLines().getFirst()).startsWith("error mcp_undeclared_server:");
  }

  @Test
  void demoRunsTheTriageExampleAgainstBothExampleServersAndPrintsItsReceipts() throws Exception {
    Path root = demoRoot(freePort());
    Cli.Result r;
    // The shipped port is busy, as while a user follows the README tour: the test does not care.
    try (ServerSocket shipped = bindIfFree(SHIPPED_PAYMENTS_PORT)) {
      r = cli.with("FLOWS_ROOT", root.toString()).run("--db", db.jdbcUrl(), "--json", "demo");
    }
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode end = r.jsonLines().getLast();
    assertThat(end.path("type").asText()).isEqualTo("demo.end");
    assertThat(end.path("receipts").findValuesAsText("tool"))
        .contains("classify", "create_customer", "create_ticket");
    assertThat(end.path("receipts"))
        .allSatisfy(rc -> assertThat(rc.path("type").asText()).isEqualTo("mcp"));
    assertThat(end.path("output").path("ticket").asText()).startsWith("T-");
  }

  /** The port flows-examples/flows/flows.json gives the payments server. */
  static final int SHIPPED_PAYMENTS_PORT = 18931;

  /**
   * A checkout for {@code flows demo} whose flows.json is the shipped one with the payments server
   * on {@code port} (and the tickets server run from the shipped flows directory).
   */
  static Path demoRoot(int port) throws Exception {
    Path shipped = Path.of("..").toAbsolutePath().normalize().resolve("flows-examples/flows");
    Path root = Files.createTempDirectory(dir, "demo-root");
    Path flows = Files.createDirectories(root.resolve("flows-examples/flows"));
    Files.copy(shipped.resolve("triage.flow.java"), flows.resolve("triage.flow.java"));
    ObjectNode config = (ObjectNode) JSON.readTree(shipped.resolve("flows.json").toFile());
    ObjectNode mcp = (ObjectNode) config.path("mcp");
    String url = mcp.path("payments").path("url").asText();
    assertThat(URI.create(url).getPort()).isEqualTo(SHIPPED_PAYMENTS_PORT);
    ((ObjectNode) mcp.get("payments"))
        .put("url", url.replace(":" + SHIPPED_PAYMENTS_PORT, ":" + port));
    ((ObjectNode) mcp.get("tickets")).put("cwd", shipped.toString());
    Files.writeString(flows.resolve("flows.json"), JSON.writeValueAsString(config));
    return root;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Holds {@code port} when nothing else does (null when something already listens there). */
  static ServerSocket bindIfFree(int port) {
    try {
      return new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      return null;
    }
  }
}
