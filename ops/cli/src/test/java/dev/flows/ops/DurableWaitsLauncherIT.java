package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.mcp.testkit.NoProcessLeftBehind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Timers and signal waits survive the loss of their worker: real worker processes through the
 * launcher, the first SIGKILLed while the body waits, on the one embedded database.
 */
@ExtendWith(NoProcessLeftBehind.class)
class DurableWaitsLauncherIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path home;
  private static Path flowDir;
  private static Path sleeper;
  private static Path approver;

  /** Each memo appends a line to the file named by the input: a memo redone shows twice. */
  static final String SLEEPER =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.nio.file.*;
      import java.time.Duration;

      public class Sleeper implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("sleeper").build();
        }

        static String mark(JsonNode input, String what) throws Exception {
          Files.writeString(Path.of(input.path("marks").asText()), what + "\\n",
              StandardOpenOption.CREATE, StandardOpenOption.APPEND);
          return what;
        }

        public JsonNode run(Ctx f, JsonNode input) {
          f.step("before", () -> mark(input, "before"));
          String slept = f.now().toString();
          f.sleep(Duration.ofSeconds(3));
          String woke = f.now().toString();
          f.step("after", () -> mark(input, "after"));
          return JsonNodeFactory.instance.objectNode().put("slept", slept).put("woke", woke);
        }
      }
      """;

  static final String APPROVER =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.time.Duration;

      public class Approver implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("approver").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          JsonNode got = f.awaitSignal("approve", Duration.ofHours(24))
              .orElse(JsonNodeFactory.instance.textNode("timed out"));
          return JsonNodeFactory.instance.objectNode().set("approval", got);
        }
      }
      """;

  @BeforeAll
  static void setUp() throws IOException {
    home = Files.createTempDirectory("flows-home-waits-it");
    flowDir = Files.createTempDirectory("flows-waits-it");
    sleeper = Files.writeString(flowDir.resolve("sleeper.flow.java"), SLEEPER);
    approver = Files.writeString(flowDir.resolve("approver.flow.java"), APPROVER);
  }

  @AfterAll
  static void stop() throws Exception {
    flows("db", "stop");
    PgBinaries.deleteTree(home);
  }

  @Test
  void aSleepingBodyWhoseWorkerIsKilledResumesOnceAtOrAfterItsDueTimeOnAnotherWorker()
      throws Exception {
    Path marks = Files.createTempFile(flowDir, "marks", ".txt");
    Process first = start("worker", "--flows", flowDir.toString());
    String run;
    JsonNode waiting;
    try {
      run = detach(sleeper, "{\"marks\":\"" + marks + "\"}");
      awaitSuspended(run);
    } finally {
      ProcessTree.kill(first); // SIGKILL during the sleep
    }
    waiting = waitsFor(run);
    assertThat(waiting.path("kind").asText()).isEqualTo("timer");
    Instant due = Instant.parse(waiting.path("until").asText());
    JsonNode killed = flows("runs", "show", run, "--json").json().path("run");
    assertThat(killed.path("steps").get(0).path("attemptCount").asInt())
        .as("the worker was killed before the timer fired")
        .isEqualTo(1);

    Process second = start("worker", "--flows", flowDir.toString());
    try {
      Launcher.Ran watch = flows("runs", "watch", run, "--json");
      assertThat(watch.exit()).as(watch.err()).isZero();
      JsonNode out = lastLine(watch.out()).path("output");
      assertThat(Instant.parse(out.path("woke").asText())).isAfterOrEqualTo(due);
      // The due time is the sleep's call time plus 3 s, just after the journaled f.now() before it.
      assertThat(Duration.between(Instant.parse(out.path("slept").asText()), due))
          .isBetween(Duration.ofSeconds(3), Duration.ofSeconds(4));
    } finally {
      ProcessTree.stop(second);
    }
    assertThat(Files.readAllLines(marks)).containsExactly("before", "after");
    JsonNode body = flows("runs", "show", run, "--json").json().path("run").path("steps").get(0);
    assertThat(body.path("attemptCount").asInt()).as("suspended once, resumed once").isEqualTo(2);
  }

  @Test
  void aSignalSentWhileTheWaitingBodysWorkerIsDeadIsDeliveredOnceByTheNextWorker()
      throws Exception {
    Process first = start("worker", "--flows", flowDir.toString());
    String run;
    JsonNode waiting;
    try {
      run = detach(approver, "{}");
      awaitSuspended(run);
    } finally {
      ProcessTree.kill(first); // SIGKILL while the body waits
    }
    waiting = waitsFor(run);
    assertThat(waiting.path("kind").asText()).isEqualTo("signal");
    assertThat(waiting.path("signal").asText()).isEqualTo("approve");
    Launcher.Ran shown = flows("runs", "show", run);
    assertThat(shown.out()).contains("waits for signal 'approve'");

    Launcher.Ran sent =
        flows("runs", "signal", run, "approve", "{\"by\":\"ann\"}", "--key", "k1", "--json");
    assertThat(sent.exit()).as(sent.err()).isZero();
    assertThat(sent.json().path("deduped").asBoolean()).isFalse();
    Launcher.Ran again = flows("runs", "signal", run, "approve", "{\"by\":\"bob\"}", "--key", "k1");
    assertThat(again.exit()).as(again.err()).isZero();
    assertThat(again.out()).contains("nothing sent");

    Process second = start("worker", "--flows", flowDir.toString());
    try {
      Launcher.Ran watch = flows("runs", "watch", run, "--json");
      assertThat(watch.exit()).as(watch.err()).isZero();
      assertThat(lastLine(watch.out()).path("output").path("approval").path("by").asText())
          .isEqualTo("ann");
    } finally {
      ProcessTree.stop(second);
    }
    Launcher.Ran ended = flows("runs", "signal", run, "approve");
    assertThat(ended.exit()).isNotZero();
    assertThat(ended.errLines()).hasSize(1);
    assertThat(ended.errLines().getFirst()).startsWith("error run_terminal: ");
    Launcher.Ran unknown = flows("runs", "signal", "no-such-run", "approve");
    assertThat(unknown.errLines().getFirst()).startsWith("error run_not_found: ");
  }

  private static String detach(Path file, String input) throws Exception {
    Launcher.Ran r = flows("run", file.toString(), "--input", input, "--detach", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    return JSON.readTree(r.out().lines().findFirst().orElseThrow()).path("run").asText();
  }

  /**
   * Returns as soon as the body gave its attempt back (read from the embedded database directly: a
   * CLI launch per look could miss a 3 s sleep).
   */
  private static void awaitSuspended(String run) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (System.nanoTime() < until) {
      try (Connection c = embedded();
          PreparedStatement st =
              c.prepareStatement(
                  "SELECT s.status, s.last_reason, r.status FROM flows.steps s"
                      + " JOIN flows.runs r ON r.run_id = s.run_id WHERE s.run_id = ?")) {
        st.setString(1, run);
        while (System.nanoTime() < until) {
          try (ResultSet rs = st.executeQuery()) {
            if (rs.next()) {
              assertThat(rs.getString(3)).as("the run is still going").isEqualTo("running");
              if ("ready".equals(rs.getString(1)) && "suspended".equals(rs.getString(2))) {
                return;
              }
            }
          }
          Thread.sleep(20);
        }
      } catch (SQLException e) {
        Thread.sleep(100); // the embedded database is starting
      }
    }
    throw new AssertionError("the body never suspended");
  }

  private static Connection embedded() throws Exception {
    JsonNode state = JSON.readTree(home.resolve("pg/server.json").toFile());
    String password = Files.readString(home.resolve("pg/password")).trim();
    return DriverManager.getConnection(
        state.path("jdbcUrl").asText(), EmbeddedServer.USER, password);
  }

  /** What `runs show` says the body waits for. */
  private static JsonNode waitsFor(String run) throws Exception {
    JsonNode step = flows("runs", "show", run, "--json").json().path("run").path("steps").get(0);
    assertThat(step.has("waitsFor")).as(step.toString()).isTrue();
    return step.get("waitsFor");
  }

  private static JsonNode lastLine(String out) throws IOException {
    List<String> lines = out.lines().filter(l -> !l.isBlank()).toList();
    return JSON.readTree(lines.getLast());
  }

  private static Launcher.Ran flows(String... args) throws Exception {
    return new Launcher(home).run(args);
  }

  private static Process start(String... args) throws IOException {
    return new Launcher(home).start(args);
  }
}
