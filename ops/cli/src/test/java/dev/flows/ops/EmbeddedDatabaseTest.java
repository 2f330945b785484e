package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The embedded default, in a throwaway FLOWS_HOME: started on demand by whichever command comes
 * first, shared by concurrent commands in other processes, outliving them, durable, stoppable. The
 * methods build on each other (one server for the class keeps the suite lean).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EmbeddedDatabaseTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path home;
  private static Cli cli;

  @BeforeAll
  static void freshHome() throws IOException {
    home = Files.createTempDirectory("flows-home");
    cli = new Cli(Map.of(Session.HOME_VARIABLE, home.toString()));
  }

  @AfterAll
  static void stopServer() {
    cli.run("db", "stop");
    PgBinaries.deleteTree(home);
  }

  @Test
  @Order(1)
  void statusOnAFreshHomeSaysNothingRunsAndStartsNothing() {
    Cli.Result r = cli.run("db", "status", "--json");
    assertThat(r.exit()).isZero();
    JsonNode d = r.json().path("database");
    assertThat(d.path("kind").asText()).isEqualTo("embedded");
    assertThat(d.path("initialized").asBoolean()).isFalse();
    assertThat(d.path("running").asBoolean()).isFalse();
    assertThat(home.resolve("pg/data")).doesNotExist();
  }

  @Test
  @Order(2)
  void commandsStartedTogetherInSeparateProcessesShareOneServer() throws Exception {
    List<Process> ps = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ps.add(flowsProcess("db", "start", "--json"));
    }
    List<JsonNode> answers = new ArrayList<>();
    int announced = 0;
    for (Process p : ps) {
      assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as("stderr: %s", err).isZero();
      answers.add(JSON.readTree(out).path("database"));
      if (err.contains("started the embedded PostgreSQL")) {
        announced++;
        assertThat(err.lines().filter(l -> !l.isBlank()).count()).isEqualTo(1);
        assertThat(err).contains(home.resolve("pg").toString());
      }
    }
    assertThat(announced).as("exactly one process started the server").isEqualTo(1);
    assertThat(answers)
        .extracting(a -> a.path("pid").asLong())
        .containsOnly(answers.get(0).path("pid").asLong());
    assertThat(answers)
        .extracting(a -> a.path("port").asInt())
        .containsOnly(answers.get(0).path("port").asInt());
  }

  @Test
  @Order(3)
  void theServerOutlivesTheCommandsThatStartedItAndIsDurable() throws Exception {
    Cli.Result r = cli.run("db", "status", "--json");
    assertThat(r.exit()).isZero();
    JsonNode d = r.json().path("database");
    assertThat(d.path("running").asBoolean()).isTrue();
    assertThat(d.path("fsync").asText()).isEqualTo("on");
    assertThat(d.path("synchronousCommit").asText()).isEqualTo("on");
    assertThat(ProcessHandle.of(d.path("pid").asLong())).isPresent();
    JsonNode state = JSON.readTree(home.resolve("pg/server.json").toFile());
    assertThat(state.path("port").asInt()).isEqualTo(d.path("port").asInt());
    assertThat(state.path("pid").asLong()).isEqualTo(d.path("pid").asLong());
  }

  @Test
  @Order(4)
  void dataSurvivesAStopAndTheNextCommandStartsTheServerAgain() throws Exception {
    JsonNode before = cli.run("db", "status", "--json").json().path("database");
    String password = Files.readString(home.resolve("pg/password")).trim();
    try (Connection c =
            DriverManager.getConnection(
                before.path("jdbcUrl").asText(), EmbeddedServer.USER, password);
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE kept (v text)");
      st.execute("INSERT INTO kept VALUES ('still here')");
    }
    Cli.Result stop = cli.run("db", "stop", "--json");
    assertThat(stop.exit()).isZero();
    assertThat(stop.json().path("stopped").asBoolean()).isTrue();
    assertThat(
            cli.run("db", "status", "--json").json().path("database").path("running").asBoolean())
        .isFalse();
    Cli.Result again = cli.run("db", "stop", "--json");
    assertThat(again.json().path("stopped").asBoolean()).isFalse();

    Cli.Result start = cli.run("db", "start", "--json");
    assertThat(start.exit()).isZero();
    assertThat(start.errLines())
        .singleElement()
        .asString()
        .contains("started the embedded PostgreSQL");
    JsonNode after = start.json().path("database");
    assertThat(after.path("port").asInt())
        .as("a restart takes the port it had when that port is free")
        .isEqualTo(before.path("port").asInt());
    try (Connection c =
            DriverManager.getConnection(
                after.path("jdbcUrl").asText(), EmbeddedServer.USER, password);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT v FROM kept")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("still here");
    }
  }

  @Test
  @Order(5)
  void startNamesTheUrlOnceAndStatusPrintsAPsqlCommandThatReadsThePasswordFromItsFile() {
    Cli.Result start = cli.run("db", "start");
    assertThat(start.exit()).as(start.err()).isZero();
    assertThat(start.out().split("jdbc:postgresql://", -1)).as(start.out()).hasSize(2);
    int port = cli.run("db", "status", "--json").json().path("database").path("port").asInt();
    Cli.Result status = cli.run("db", "status");
    assertThat(status.exit()).isZero();
    String password = home.resolve("pg/password").toString();
    assertThat(status.out().lines().map(String::strip))
        .contains(
            "psql: PGPASSWORD=\"$(cat '"
                + password
                + "')\" psql -h localhost -p "
                + port
                + " -U flows flows");
    String url = cli.run("db", "status", "--json").json().path("database").path("jdbcUrl").asText();
    assertThat(url).startsWith("jdbc:postgresql://localhost:" + port + "/");
    assertThat(status.out().lines().map(String::strip)).contains("url: " + url);
  }

  @Test
  @Order(6)
  void theDatabaseAcceptsOnlyItsPasswordAndAWrongOneIsRefusedAtOnceAsAnAuthenticationFailure()
      throws Exception {
    JsonNode d = cli.run("db", "status", "--json").json().path("database");
    long started = System.nanoTime();
    Cli.Result r =
        cli.run(
            "db",
            "status",
            "--json",
            "--db",
            "postgres://flows:wrong@localhost:" + d.path("port").asInt() + "/flows");
    Refusals.assertJsonRefused(r, "database_auth_failed", Exit.REFUSED);
    JsonNode e = r.json().path("error");
    assertThat(e.path("retryable").asBoolean()).isFalse();
    assertThat(e.path("fix").asText()).contains("user").contains("password");
    assertThat(r.err()).doesNotContain("wrong");
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - started))
        .as("refused at once, not after a connection timeout")
        .isLessThan(OpsConfig.DEFAULT_CONNECT_TIMEOUT);
  }

  @Test
  @Order(7)
  void aLockFileLeftByACrashNamingAnotherLiveProcessDoesNotBlockTheNextStart() throws Exception {
    assertThat(cli.run("db", "stop").exit()).isZero();
    // As after a crash and reboot: postmaster.pid names a live process (this JVM) that is not the
    // server; the server is judged by its port answering, and PostgreSQL replaces the stale file.
    Path pidFile = home.resolve("pg/data/postmaster.pid");
    Files.writeString(
        pidFile,
        String.join(
            "\n",
            Long.toString(ProcessHandle.current().pid()),
            home.resolve("pg/data").toString(),
            "0",
            "1",
            "",
            "localhost",
            "0 0",
            "ready",
            ""));
    assertThat(
            cli.run("db", "status", "--json").json().path("database").path("running").asBoolean())
        .isFalse();
    Cli.Result start = cli.run("db", "start", "--json");
    assertThat(start.exit()).as(start.err()).isZero();
    assertThat(start.json().path("database").path("pid").asLong())
        .isNotEqualTo(ProcessHandle.current().pid());
  }

  private static Process flowsProcess(String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(FlowsCli.class.getName());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put(Session.HOME_VARIABLE, home.toString());
    pb.environment().remove(DatabaseTarget.URL_VARIABLE);
    pb.directory(new File(System.getProperty("user.dir")));
    return pb.start();
  }
}
