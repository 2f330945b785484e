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
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Greet implements Flow<JsonNode, JsonNode> {
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
    flow = greetWithTools(dir);
  }

  /** {@link #FLOW} in {@code dir}, beside a flows.json naming a stdio test server "tools". */
  static Path greetWithTools(Path dir) throws IOException {
    Path greet = Files.writeString(dir.resolve("greet.flow.java"), FLOW);
    JsonNode s = McpServerConfigJson.write(Jvm.stdioServer("tools", List.of(), Map.of()));
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\"tools\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + "}}}");
    return greet;
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

  /** The statements of {@link #FLOW}'s body. */
  private static final String FLOW_BODY =
      FLOW.substring(FLOW.indexOf("    String who"), FLOW.indexOf("  }\n}"));

  private static Path flowFile(String className, String body) throws Exception {
    String source =
        FLOW.replace("class Greet", "class " + className)
            .replace("named(\"greet\")", "named(\"" + className.toLowerCase() + "\")")
            .replace(FLOW_BODY, body);
    return Files.writeString(dir.resolve(className.toLowerCase() + ".flow.java"), source);
  }

  @Test
  void aFailedRunSaysWhyOnItsLastLineAndNamesTheRerunCommand() throws Exception {
    Path thrower =
        flowFile(
            "Thrower",
            "    f.step(\"who\", () -> \"x\");\n"
                + "    throw new IllegalStateException(\"the ledger is closed\");\n");

    Cli.Result r = cli.run("--db", db.jdbcUrl(), "run", thrower.toString());

    assertThat(r.exit()).as(r.err()).isEqualTo(Exit.FAILED);
    String last = r.out().lines().reduce((a, b) -> b).orElseThrow();
    String run = r.out().lines().findFirst().orElseThrow().split(" ")[2];
    assertThat(last)
        .startsWith("run " + run + " failed")
        .contains("step body: flow_failed")
        .contains("the ledger is closed")
        .contains("flows runs rerun " + run);
    Cli.Result json = cli.run("--db", db.jdbcUrl(), "--json", "run", thrower.toString());
    JsonNode failure = json.jsonLines().getLast().path("failure");
    assertThat(json.jsonLines().getLast().path("type").asText()).isEqualTo("run.end");
    assertThat(failure.path("stepId").asText()).isEqualTo("body");
    assertThat(failure.path("diagnostic").asText()).isEqualTo("flow_failed");
    assertThat(failure.path("message").asText()).contains("the ledger is closed");
  }

  @Test
  void aFailedShellCommandIsLabelledFShOnTheRunsLastLine() throws Exception {
    Path shell =
        flowFile(
            "Shell",
            "    f.shell(\"echo nope; exit 3\").call();\n"
                + "    return JsonNodeFactory.instance.objectNode();\n");

    Cli.Result r = cli.run("--db", db.jdbcUrl(), "run", shell.toString());

    assertThat(r.exit()).as(r.err()).isEqualTo(Exit.FAILED);
    String last = r.out().lines().reduce((a, b) -> b).orElseThrow();
    assertThat(last).contains("f.shell(echo nope; exit 3) failed").doesNotContain("f.command(");
  }

  @Test
  void aConsoleRerunAdmitsTheEndedRunAgainWithTheActorInItsAdmissionKey() throws Exception {
    Path file =
        flowFile(
            "UiAgain",
            "    return JsonNodeFactory.instance.objectNode()"
                + ".put(\"hello\", input.path(\"who\").asText());\n");
    Cli.Result ran =
        cli.run(
            "--db", db.jdbcUrl(), "--json", "run", file.toString(), "--input", "{\"who\":\"bo\"}");
    assertThat(ran.exit()).as(ran.err()).isZero();
    String old = ran.jsonLines().getFirst().path("run").asText();
    try (var journal =
            dev.flows.journalstore.PostgresJournal.connect(
                dev.flows.journalstore.JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(2));
        Console console =
            Console.start(
                journal,
                db.dataSource(),
                Console.Settings.localhost(0, java.util.Optional.of("t0ken")))) {
      var http = java.net.http.HttpClient.newHttpClient();
      var response =
          http.send(
              java.net.http.HttpRequest.newBuilder(
                      console.uri().resolve("/api/runs/" + old + "/rerun"))
                  .header("Authorization", "Bearer t0ken")
                  .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      String fresh = JSON.readTree(response.body()).path("newRunId").asText();
      var run = journal.run(new dev.flows.kernel.journal.RunRef(fresh)).orElseThrow();
      assertThat(run.rerunOf().orElseThrow().value()).isEqualTo(old);
      assertThat(run.admissionKey()).startsWith("flow:uiagain:ui-rerun:ui:127.0.0.1:");
      assertThat(run.spec().path("steps").path(0).path("input").path("who").asText())
          .isEqualTo("bo");
    }
  }

  @Test
  void rerunStartsTheSameInputUnderTheFixedSourceAsANewRunLinkedToTheOld() throws Exception {
    String broken =
        "    String who = f.step(\"who\", () -> input.path(\"who\").asText()).asText();\n"
            + "    if (who.equals(\"ada\")) throw new IllegalStateException(\"not yet\");\n"
            + "    return JsonNodeFactory.instance.objectNode().put(\"hello\", who);\n";
    Path file = flowFile("Fixable", broken);
    Cli.Result failed =
        cli.run(
            "--db", db.jdbcUrl(), "--json", "run", file.toString(), "--input", "{\"who\":\"ada\"}");
    assertThat(failed.exit()).as(failed.err()).isEqualTo(Exit.FAILED);
    String old = failed.jsonLines().getFirst().path("run").asText();
    flowFile("Fixable", broken.replace("who.equals(\"ada\")", "who.isEmpty()"));

    Cli.Result rerun = cli.run("--db", db.jdbcUrl(), "--json", "runs", "rerun", old);

    assertThat(rerun.exit()).as(rerun.err()).isZero();
    JsonNode started = rerun.jsonLines().getFirst();
    String fresh = started.path("run").asText();
    assertThat(fresh).isNotEqualTo(old);
    assertThat(started.path("rerunOf").asText()).isEqualTo(old);
    assertThat(rerun.jsonLines().getLast().path("output").path("hello").asText()).isEqualTo("ada");
    JsonNode oldShown = cli.run("--db", db.jdbcUrl(), "--json", "runs", "show", old).json();
    assertThat(oldShown.path("run").path("reruns").get(0).asText()).isEqualTo(fresh);
    JsonNode freshShown = cli.run("--db", db.jdbcUrl(), "--json", "runs", "show", fresh).json();
    assertThat(freshShown.path("run").path("rerunOf").asText()).isEqualTo(old);
    assertThat(cli.run("--db", db.jdbcUrl(), "runs", "show", old).out())
        .contains("rerun as " + fresh);
    assertThat(cli.run("--db", db.jdbcUrl(), "runs", "show", fresh).out())
        .contains("rerun of " + old);
    try (var c = java.sql.DriverManager.getConnection(db.jdbcUrl());
        var ps = c.prepareStatement("SELECT rerun_of FROM flows.runs_overview WHERE run_id = ?")) {
      ps.setString(1, fresh);
      try (var rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo(old);
      }
    }

    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.copy(dir.resolve("flows.json"), elsewhere.resolve("flows.json"));
    Path copy = Files.copy(file, elsewhere.resolve("fixable.flow.java"));
    Cli.Result fromSource =
        cli.run(
            "--db", db.jdbcUrl(), "runs", "rerun", old, "--source", copy.toString(), "--key", "k");
    assertThat(fromSource.exit()).as(fromSource.err()).isZero();
    assertThat(fromSource.out()).contains("rerun of " + old).contains("succeeded");
  }

  @Test
  void rerunRefusesAnUnknownRunARunNotEndedAChildAndABadSource() throws Exception {
    Cli.Result unknown = cli.run("--db", db.jdbcUrl(), "runs", "rerun", "run_nope");
    Refusals.assertRefused(unknown, "run_not_found", Exit.REFUSED);

    Cli.Result detached =
        cli.run("--db", db.jdbcUrl(), "--json", "run", flow.toString(), "--detach");
    String open = detached.jsonLines().getFirst().path("run").asText();
    Cli.Result notEnded = cli.run("--db", db.jdbcUrl(), "runs", "rerun", open);
    Refusals.assertRefused(notEnded, "run_not_ended", Exit.REFUSED);
    assertThat(notEnded.err()).contains("flows runs cancel " + open);
    cli.run("--db", db.jdbcUrl(), "runs", "cancel", open);

    Cli.Result done = cli.run("--db", db.jdbcUrl(), "--json", "run", flow.toString());
    String ended = done.jsonLines().getFirst().path("run").asText();
    Refusals.assertRefused(
        cli.run(
            "--db",
            db.jdbcUrl(),
            "runs",
            "rerun",
            ended,
            "--source",
            dir.resolve("gone.flow.java").toString()),
        "flow_not_found",
        Exit.REFUSED);
    Path other = flowFile("Other", "    return input;\n");
    Refusals.assertRefused(
        cli.run("--db", db.jdbcUrl(), "runs", "rerun", ended, "--source", other.toString()),
        "flow_invalid",
        Exit.REFUSED);
    String child =
        cli.run("--db", db.jdbcUrl(), "--json", "runs", "show", ended)
            .json()
            .path("run")
            .path("children")
            .get(0)
            .path("runId")
            .asText();
    Cli.Result ofChild = cli.run("--db", db.jdbcUrl(), "runs", "rerun", child);
    Refusals.assertRefused(ofChild, "invalid_input", Exit.REFUSED);
    assertThat(ofChild.err()).contains("flows runs rerun " + ended);
  }

  @Test
  void checkRefusesALiteralToolTheServerDoesNotListAndSkipsAComputedName() throws Exception {
    Path typo = flowFile("Typo", FLOW_BODY.replace(".tool(\"echo\")", ".tool(\"ecoh\")"));

    Cli.Result r = cli.run("check", typo.toString());

    Refusals.assertRefused(r, "mcp_unknown_tool", Exit.REFUSED);
    assertThat(r.err()).contains("tool(\"ecoh\")").contains("echo");
    Cli.Result json = cli.run("--json", "check", typo.toString());
    assertThat(json.json().path("error").path("problems").findValuesAsText("code"))
        .containsExactly("mcp_unknown_tool");
    assertThat(cli.run("--db", db.jdbcUrl(), "run", typo.toString()).exit())
        .isEqualTo(Exit.REFUSED);
    Path computed =
        flowFile(
            "Computed",
            FLOW_BODY.replace(".tool(\"echo\")", ".tool(input.path(\"tool\").asText(\"ecoh\"))"));
    assertThat(cli.run("check", computed.toString()).exit()).isZero();
  }

  @Test
  void mcpToolsWithNoFlowsJsonAnywhereIsRefusedConfigNotFound() throws Exception {
    Path bare = Files.createTempDirectory("flows-no-config");
    try {
      Cli.Result r = cli.run("mcp", "tools", "--dir", bare.toString());
      Refusals.assertRefused(r, "config_not_found", Exit.REFUSED);
      assertThat(r.err()).contains(bare.toString());
      Refusals.assertJsonRefused(
          cli.run("--json", "mcp", "call", "tools", "echo", "--dir", bare.toString()),
          "config_not_found",
          Exit.REFUSED);
    } finally {
      Files.delete(bare);
    }
  }

  @Test
  void aBadArgsJsonOfMcpCallIsRefusedNamingArgsJson() {
    Cli.Result r = cli.run("mcp", "call", "tools", "echo", "{nope", "--dir", dir.toString());

    Refusals.assertRefused(r, "invalid_input", Exit.REFUSED);
    assertThat(r.errLines().getFirst())
        .startsWith("error invalid_input: ARGS_JSON is not valid JSON")
        .contains("(at ARGS_JSON)")
        .doesNotContain("--input");
  }

  @Test
  void theReadmesAndSurfacesEffectsQueriesListTheMcpCallsOfARun() throws Exception {
    Cli.Result r = cli.run("--db", db.jdbcUrl(), "--json", "run", flow.toString());
    assertThat(r.exit()).as(r.err()).isZero();
    String run = r.jsonLines().getFirst().path("run").asText();
    Path root = Launcher.repoRoot();
    String readme =
        query(Files.readString(root.resolve("README.md")), "-- Confirmed effects of a run")
            .replace("'...'", "'" + run + "'");
    String surface =
        query(Files.readString(root.resolve("SURFACE.md")), "-- Confirmed MCP effects of a run")
            .replace("'run_0123'", "'" + run + "'");

    for (String sql : List.of(readme, surface)) {
      List<String> surfaces = new java.util.ArrayList<>();
      try (var c = java.sql.DriverManager.getConnection(db.jdbcUrl());
          var st = c.createStatement();
          var rs = st.executeQuery(sql)) {
        while (rs.next()) {
          surfaces.add(rs.getString("surface_path"));
        }
      }
      assertThat(surfaces).as(sql).contains("/mcp/tools/echo");
      assertThat(surfaces).as(sql).anyMatch(p -> p.startsWith("/memo/"));
    }
  }

  /** The SQL statement that follows the comment line starting with {@code comment}. */
  private static String query(String doc, String comment) {
    int at = doc.indexOf(comment);
    assertThat(at).as(comment).isNotNegative();
    int start = doc.indexOf('\n', at) + 1;
    return doc.substring(start, doc.indexOf(';', start));
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

  @Test
  void demoSpeaksTheRevisionAskedForToBothExampleServersAndItsReceiptsSaySo() throws Exception {
    for (String revision : List.of("2026-07-28", "2025-11-25")) {
      Path root = demoRoot(freePort());
      Cli.Result r =
          cli.with("FLOWS_ROOT", root.toString())
              .run("--db", db.jdbcUrl(), "--json", "demo", "--protocol", revision);
      assertThat(r.exit()).as(r.err()).isZero();
      JsonNode receipts = r.jsonLines().getLast().path("receipts");
      assertThat(receipts.findValuesAsText("server")).contains("tickets", "payments");
      assertThat(receipts.findValuesAsText("protocolVersion")).hasSize(4).containsOnly(revision);
    }
    Cli.Result bad =
        cli.with("FLOWS_ROOT", demoRoot(freePort()).toString())
            .run("--db", db.jdbcUrl(), "demo", "--protocol", "2024-01-01");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.errLines()).hasSize(1);
    assertThat(bad.errLines().getFirst())
        .startsWith("error invalid_input: unknown MCP revision '2024-01-01'");
  }

  /** The port flows-examples/flows/flows.json gives the payments server. */
  static final int SHIPPED_PAYMENTS_PORT = 18931;

  /**
   * A checkout for {@code flows demo} whose flows.json is the shipped one with the payments server
   * on {@code port} (and the tickets server run from the shipped flows directory).
   */
  static Path demoRoot(int port) throws Exception {
    Path shipped = Launcher.repoRoot().resolve("flows-examples/flows");
    Path root = Files.createTempDirectory(dir, "demo-root");
    Path flows = Files.createDirectories(root.resolve("flows-examples/flows"));
    Files.copy(shipped.resolve("triage.flow.java"), flows.resolve("triage.flow.java"));
    // The demo starts the payments server with the checkout's launcher.
    Files.createSymbolicLink(root.resolve("flows-examples/bin"), shipped.resolveSibling("bin"));
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
