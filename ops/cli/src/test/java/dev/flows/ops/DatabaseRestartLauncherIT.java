package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.mcp.testkit.NoProcessLeftBehind;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A {@code flows worker} on the embedded database while an operator stops and starts that database
 * under it: the worker says the database is away in one line per backoff step, prints no stack
 * trace, and claims again by itself once the database is back, on its old port or a new one.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(NoProcessLeftBehind.class)
class DatabaseRestartLauncherIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration RESUME_WITHIN = Duration.ofSeconds(10);
  private static final Duration PATIENCE = Duration.ofSeconds(120);

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;

      public class Quick implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("quick").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String v = f.step("one", () -> "done").asText();
          return JsonNodeFactory.instance.objectNode().put("v", v);
        }
      }
      """;

  private static Path home;
  private static Path flow;
  private static Path log;
  private static Process worker;

  @BeforeAll
  static void startWorker() throws Exception {
    home = Files.createTempDirectory("flows-home-restart-it");
    flow =
        Files.writeString(
            Files.createDirectories(home.resolve("flows")).resolve("quick.flow.java"), FLOW);
    Launcher.Ran start = flows("db", "start", "--json");
    assertThat(start.exit()).as(start.err()).isZero();
    log = home.resolve("worker.log");
    worker = new Launcher(home).start(log, "worker", "--flows", flow.getParent().toString());
    awaitLog("ready (capacity", 0);
    String run = detach();
    awaitClaimed(run, System.nanoTime() + PATIENCE.toNanos());
  }

  @AfterAll
  static void stop() throws Exception {
    if (worker != null) {
      ProcessTree.stop(worker);
    }
    flows("db", "stop");
    PgBinaries.deleteTree(home);
  }

  @Test
  @Order(1)
  void aWorkerClaimsAgainWithinTenSecondsOfARestartOfTheEmbeddedDatabaseOnItsOwnPort()
      throws Exception {
    int port = port();
    long from = logSize();
    assertThat(flows("db", "stop").exit()).isZero();
    awaitLog("database unavailable", from);

    Launcher.Ran start = flows("db", "start", "--json");
    long restarted = System.nanoTime();
    assertThat(start.exit()).as(start.err()).isZero();
    assertThat(start.json().path("database").path("port").asInt())
        .as("the free old port is taken again")
        .isEqualTo(port);
    String run = detach();
    awaitClaimed(run, restarted + RESUME_WITHIN.toNanos());
    awaitLog("database reachable again", from);
    assertOneLinersOnly(from);
  }

  @Test
  @Order(2)
  void aWorkerFollowsServerJsonWhenTheRestartedDatabaseHadToTakeAnotherPort() throws Exception {
    int port = port();
    long from = logSize();
    assertThat(flows("db", "stop").exit()).isZero();
    try (PortSquatter squatter = new PortSquatter(port)) {
      awaitLog("database unavailable", from);
      Launcher.Ran start = flows("db", "start", "--json");
      long restarted = System.nanoTime();
      assertThat(start.exit()).as(start.err()).isZero();
      int moved = start.json().path("database").path("port").asInt();
      assertThat(moved).isNotEqualTo(port);
      assertThat(JSON.readTree(home.resolve("pg/server.json").toFile()).path("port").asInt())
          .isEqualTo(moved);
      String run = detach();
      awaitClaimed(run, restarted + RESUME_WITHIN.toNanos());
    }
    assertOneLinersOnly(from);
  }

  /** What the worker printed since {@code from}: no stack trace, each line a one-line message. */
  private static void assertOneLinersOnly(long from) throws IOException {
    List<String> lines = logSince(from).lines().toList();
    assertThat(lines).isNotEmpty();
    assertThat(lines)
        .noneMatch(l -> l.startsWith("\tat ") || l.strip().startsWith("at "))
        .noneMatch(l -> l.startsWith("Caused by") || l.strip().startsWith("... "))
        .noneMatch(l -> l.matches("^[\\w.$]+(Exception|Error)(: .*)?$"));
    List<String> away = lines.stream().filter(l -> l.contains("database unavailable")).toList();
    assertThat(away).allSatisfy(l -> assertThat(l).contains("WARN").contains("retry"));
    assertThat(away.stream().map(l -> l.substring(0, l.indexOf(']') + 1)).distinct())
        .as("one thread reports the outage, one line per backoff step")
        .hasSize(1);
  }

  private static int port() throws Exception {
    return flows("db", "status", "--json").json().path("database").path("port").asInt();
  }

  private static String detach() throws Exception {
    Launcher.Ran r = flows("run", flow.toString(), "--detach", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    return JSON.readTree(r.out().lines().findFirst().orElseThrow()).path("run").asText();
  }

  /** Waits until the worker has opened an attempt of {@code run}'s body, by {@code deadline}. */
  private static void awaitClaimed(String run, long deadline) throws Exception {
    while (true) {
      if (attempts(run) > 0) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "the worker did not claim " + run + " in time; its log:\n" + logSince(0));
      }
      Thread.sleep(100);
    }
  }

  private static int attempts(String run) throws IOException {
    JsonNode state = JSON.readTree(home.resolve("pg/server.json").toFile());
    String password = Files.readString(home.resolve("pg/password")).trim();
    try (Connection c =
            DriverManager.getConnection(
                state.path("jdbcUrl").asText(), EmbeddedServer.USER, password);
        PreparedStatement st =
            c.prepareStatement("SELECT count(*) FROM flows.step_attempts WHERE run_id = ?")) {
      st.setString(1, run);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      return 0;
    }
  }

  private static long logSize() throws IOException {
    return Files.size(log);
  }

  private static String logSince(long from) throws IOException {
    byte[] all = Files.readAllBytes(log);
    return new String(all, (int) from, all.length - (int) from, StandardCharsets.UTF_8);
  }

  private static void awaitLog(String text, long from) throws Exception {
    long until = System.nanoTime() + PATIENCE.toNanos();
    while (!logSince(from).contains(text)) {
      if (System.nanoTime() - until > 0 || !worker.isAlive()) {
        throw new AssertionError("no \"" + text + "\" in the worker's log:\n" + logSince(0));
      }
      Thread.sleep(100);
    }
  }

  private static Launcher.Ran flows(String... args) throws Exception {
    return new Launcher(home).run(args);
  }

  /** Another program on the database's old port: it accepts connections and hangs up at once. */
  private static final class PortSquatter implements AutoCloseable {
    private final ServerSocket socket;
    private final Thread thread;

    PortSquatter(int port) throws IOException {
      socket = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
      thread =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    while (!socket.isClosed()) {
                      try (Socket s = socket.accept()) {
                        // Hung up on: the worker learns at once that nothing answers here.
                      } catch (IOException e) {
                        return;
                      }
                    }
                  });
    }

    @Override
    public void close() throws Exception {
      socket.close();
      thread.join(5_000);
    }
  }
}
