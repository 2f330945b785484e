package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs as people read them, through the CLI's real entry point on Postgres: waits shown as a
 * status, progress in time order, steps named by what the author wrote, receipts as JSON.
 */
class RunReadingTest {
  static final String SLEEPER =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.time.Duration;

      public class Sleeper implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("sleeper").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          f.sleep(Duration.ofHours(1));
          return JsonNodeFactory.instance.objectNode().put("woke", true);
        }
      }
      """;

  /** A body with a command child and an MCP call whose tool answers a long JSON text. */
  static final String TREE =
"""
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;
import java.util.Optional;

      public class Tree implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("tree").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          f.command("true").call();
          f.mcp("tools").tool("echo").call(Map.of("text", input.path("doc").asText()));
          return JsonNodeFactory.instance.objectNode().put("done", true);
        }
      }
      """;

  private static TestDatabase.Fresh db;
  @TempDir static Path dir;
  private static Cli cli;
  private static Path approver;
  private static Path sleeper;
  private static Path tree;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("run_reading");
    // A slow watch: a whole run lands in one look, so the order of its lines is the printer's.
    cli =
        new Cli(
            Map.of(
                "FLOWS_HOME", dir.resolve("home").toString(), "FLOWS_DATABASE_URL", db.jdbcUrl()),
            OpsConfig.defaults().withWatchPollInterval(Duration.ofSeconds(2)));
    FlowCommandsTest.greetWithTools(dir);
    approver =
        Files.writeString(dir.resolve("approver.flow.java"), DurableWaitsLauncherIT.APPROVER);
    sleeper = Files.writeString(dir.resolve("sleeper.flow.java"), SLEEPER);
    tree = Files.writeString(dir.resolve("tree.flow.java"), TREE);
  }

  /** A long JSON document: 30 fields. */
  private static String doc() {
    StringBuilder b = new StringBuilder("{");
    for (int i = 0; i < 30; i++) {
      b.append(i == 0 ? "" : ",")
          .append("\"field")
          .append(i)
          .append("\":\"value ")
          .append(i)
          .append('"');
    }
    return b.append('}').toString();
  }

  private static String input() {
    return Session.JSON.createObjectNode().put("doc", doc()).toString();
  }

  /** Starts {@code flow} detached, then runs it in the background until it settles. */
  private static Started start(Path flow) throws Exception {
    String key = "k-" + UUID.randomUUID();
    Cli.Result r = cli.run("--json", "run", flow.toString(), "--key", key, "--detach");
    assertThat(r.exit()).as(r.err()).isZero();
    String run = r.jsonLines().getFirst().path("run").asText();
    CompletableFuture<Cli.Result> follow =
        CompletableFuture.supplyAsync(() -> cli.run("run", flow.toString(), "--key", key));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      JsonNode body =
          cli.run("--json", "runs", "show", run).json().path("run").path("steps").get(0);
      if (body.path("status").asText().equals("ready")
          && body.path("lastReason").asText().equals("suspended")) {
        return new Started(run, follow);
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the body of " + run + " never suspended");
  }

  private record Started(String run, CompletableFuture<Cli.Result> follow) {}

  private static JsonNode listed(String run) {
    for (JsonNode r : cli.run("--json", "runs", "list").json().path("runs")) {
      if (r.path("runId").asText().equals(run)) {
        return r;
      }
    }
    throw new AssertionError(run + " is not listed");
  }

  @Test
  void aRunWaitingForASignalIsListedAndShownAsWaitingForItWithItsRawStatusKept() throws Exception {
    Started s = start(approver);
    try {
      JsonNode row = listed(s.run());
      assertThat(row.path("status").asText()).isEqualTo("running");
      assertThat(row.path("displayStatus").asText()).isEqualTo("waiting (signal 'approve')");
      assertThat(row.path("waitingFor").path("kind").asText()).isEqualTo("signal");
      assertThat(row.path("waitingFor").path("signal").asText()).isEqualTo("approve");
      String table =
          cli.run("runs", "list")
              .out()
              .lines()
              .filter(l -> l.startsWith(s.run()))
              .findFirst()
              .orElseThrow();
      assertThat(table).contains("waiting (signal 'approve')").doesNotContain("running");
      String shown = cli.run("runs", "show", s.run()).out();
      assertThat(shown.lines().findFirst().orElseThrow()).contains("waiting (signal 'approve')");
      assertThat(shown).contains("step body: waiting (signal 'approve')").doesNotContain("[agent]");
      JsonNode tree = cli.run("--json", "runs", "show", s.run()).json().path("run");
      assertThat(tree.path("status").asText()).isEqualTo("running");
      assertThat(tree.path("displayStatus").asText()).isEqualTo("waiting (signal 'approve')");
      assertThat(tree.path("steps").get(0).path("label").asText()).isEqualTo("body");
      assertConsoleShowsTheWait(s.run());
    } finally {
      cli.run("runs", "signal", s.run(), "approve", "{\"by\":\"ann\"}");
    }
    assertThat(s.follow().get(60, TimeUnit.SECONDS).exit()).isZero();
    assertThat(listed(s.run()).path("displayStatus").asText()).isEqualTo("succeeded");
  }

  /** The console's list and run page show the wait as the status, from the same derivation. */
  private static void assertConsoleShowsTheWait(String run) throws Exception {
    String waiting = "waiting (signal &#39;approve&#39;)";
    try (PostgresJournal journal =
            PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(2));
        Console console =
            Console.start(
                journal, db.dataSource(), Console.Settings.localhost(0, Optional.empty()))) {
      HttpClient http = HttpClient.newHttpClient();
      String list =
          http.send(
                  HttpRequest.newBuilder(console.uri().resolve("/?flow=approver")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(list).contains(waiting);
      String page =
          http.send(
                  HttpRequest.newBuilder(console.uri().resolve("/runs/" + run)).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(page).contains("<span id=\"run-status\">").contains(waiting);
      assertThat(page).contains("step <code>body</code>").doesNotContain("<small>agent</small>");
    }
  }

  @Test
  void aSleepingRunIsListedAsWaitingForItsTimer() throws Exception {
    Started s = start(sleeper);
    try {
      JsonNode row = listed(s.run());
      assertThat(row.path("status").asText()).isEqualTo("running");
      assertThat(row.path("displayStatus").asText()).startsWith("waiting (timer until 20");
      Instant until = Instant.parse(row.path("waitingFor").path("until").asText());
      assertThat(until).isAfter(Instant.now().plus(Duration.ofMinutes(50)));
      assertThat(cli.run("runs", "show", s.run()).out())
          .contains("step body: waiting (timer until ");
    } finally {
      cli.run("runs", "cancel", s.run());
    }
    s.follow().get(60, TimeUnit.SECONDS);
  }

  @Test
  void progressLinesAreInTimeOrderWithStepsNamedByWhatTheAuthorWroteAndReceiptsAsJson() {
    Cli.Result r =
        cli.run("run", tree.toString(), "--input", input(), "--key", "t-" + UUID.randomUUID());
    assertThat(r.exit()).as(r.err()).isZero();
    List<String> progress =
        r.out()
            .lines()
            .map(l -> l.replaceFirst("^\\[[^]]+] ", ""))
            .filter(l -> l.startsWith("20"))
            .toList();
    List<Instant> times =
        progress.stream().map(l -> Instant.parse(l.substring(0, l.indexOf(' ')))).toList();
    assertThat(times).isSorted();
    assertThat(progress.getLast()).contains("run completed: success");
    assertThat(r.out())
        .contains("  body started")
        .contains("command true started")
        .contains("mcp tools/echo completed")
        .doesNotContain("step call")
        .doesNotContain("[agent]");
    String receipt =
        r.out()
            .lines()
            .filter(l -> l.contains("; receipt mcp tools/echo"))
            .findFirst()
            .orElseThrow();
    assertThat(receipt).contains("output {\"field0\":\"value 0\"").doesNotContain("\\\"");
    assertThat(receipt).contains("more fields, --full to see all");
  }

  @Test
  void showFoldsALongReceiptByWholeLinesAndFullShowsItAll() {
    String key = "f-" + UUID.randomUUID();
    Cli.Result r = cli.run("--json", "run", tree.toString(), "--input", input(), "--key", key);
    assertThat(r.exit()).as(r.err()).isZero();
    String child = null;
    for (JsonNode c :
        cli.run("--json", "runs", "show", r.jsonLines().getFirst().path("run").asText())
            .json()
            .path("run")
            .path("children")) {
      if (c.path("label").asText().equals("mcp tools/echo")) {
        child = c.path("runId").asText();
      }
    }
    assertThat(child).isNotNull();
    String folded = cli.run("runs", "show", child).out();
    assertThat(folded)
        .contains("step mcp tools/echo: succeeded")
        .contains("\"field0\" : \"value 0\"");
    assertThat(folded).contains("more lines, --full to see all").doesNotContain("\"field29\"");
    String full = cli.run("runs", "show", child, "--full").out();
    assertThat(full).contains("\"field29\" : \"value 29\"").doesNotContain("--full to see all");
  }
}
