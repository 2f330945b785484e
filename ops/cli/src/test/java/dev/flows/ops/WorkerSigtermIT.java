package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.mcp.testkit.NoProcessLeftBehind;
import dev.flows.worker.WorkerConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SIGTERM to {@code flows worker} started as users start it, through {@code ./flows}, on its first
 * start (the one that records the start-up cache, a JVM the script used to leave running): it
 * drains within its bound, exits 0, and leaves no lease, no row in flows.workers and no process.
 */
@ExtendWith(NoProcessLeftBehind.class)
class WorkerSigtermIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration STOP_GRACE = Duration.ofSeconds(2);

  /** {@link WorkerStop#bound} of a worker started with {@code --stop-grace 2s}. */
  private static final Duration BOUND =
      WorkerStop.bound(WorkerConfig.defaults().toBuilder().stopGrace(STOP_GRACE).build());

  /**
   * The start that records the start-up cache writes the JVM's training data as it exits, after the
   * drain: seconds on an idle machine, tens of seconds on a loaded one.
   */
  private static final Duration RECORDING_EXIT = Duration.ofSeconds(60);

  private static final Pattern DRAINED = Pattern.compile("drained in (\\d+) ms");

  private static Path home;
  private static Path flowDir;
  private static final List<Path> cdsDirs = new ArrayList<>();

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import dev.flows.sdk.*;

      public class Sleeper implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("sleeper").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          return f.shell("sleep 600").call();
        }
      }
      """;

  @BeforeAll
  static void setUp() throws Exception {
    home = Files.createTempDirectory("flows-home-sigterm-it");
    flowDir = Files.createTempDirectory("flows-flow-sigterm-it");
    Files.writeString(flowDir.resolve("sleeper.flow.java"), FLOW);
    Launcher.Ran db = new Launcher(home).run("db", "start");
    assertThat(db.exit()).as(db.err()).isZero();
  }

  @AfterAll
  static void stop() throws Exception {
    new Launcher(home).run("db", "stop");
    PgBinaries.deleteTree(home);
    for (Path cds : cdsDirs) {
      awaitCacheWritten(cds);
      PgBinaries.deleteTree(cds);
    }
    PgBinaries.deleteTree(flowDir);
  }

  @Test
  void aWorkerOnItsFirstStartDrainsOnSigtermWithinItsBoundExitsZeroAndLeavesNoLeaseRowOrProcess()
      throws Exception {
    Path cds = Files.createTempDirectory("flows-cds-sigterm-it");
    cdsDirs.add(cds);
    Path log = Files.createTempFile(home, "worker", ".log");
    Process worker =
        new Launcher(home)
            .with("FLOWS_CDS_DIR", cds.toString())
            .start(log, "worker", "--flows", flowDir.toString(), "--stop-grace", "2s");
    try {
      String run = detach();
      awaitRunningStep(run, worker, log);
      assertThat(recording(cds)).as("this start records the start-up cache").isTrue();
      assertThat(workerRows()).isEqualTo(1);
      List<ProcessHandle> tree = tree(worker);

      long t0 = System.nanoTime();
      worker.destroy(); // SIGTERM, to the pid the launcher gave
      Duration allowed = BOUND.plus(RECORDING_EXIT);
      boolean ended = worker.waitFor(allowed.toMillis(), TimeUnit.MILLISECONDS);
      Duration took = Duration.ofNanos(System.nanoTime() - t0);

      assertThat(ended).as("ended within %s; its log:%n%s", allowed, read(log)).isTrue();
      assertThat(worker.exitValue()).as(read(log)).isZero();
      Matcher drained = DRAINED.matcher(read(log));
      assertThat(drained.find()).as(read(log)).isTrue();
      assertThat(Duration.ofMillis(Long.parseLong(drained.group(1))))
          .as("the drain (the process ended after %s)", took)
          .isLessThanOrEqualTo(BOUND);
      assertThat(tree.stream().filter(ProcessHandle::isAlive).map(NoProcessLeftBehind::describe))
          .as("processes of the worker left running after it ended (%s)", took)
          .isEmpty();
      JsonNode shown = new Launcher(home).run("runs", "show", run, "--json").json().path("run");
      assertThat(running(shown)).as("no step is left leased").isZero();
      assertThat(workerRows()).as("its row in flows.workers").isZero();
    } finally {
      ProcessTree.stop(worker);
    }
  }

  @Test
  void aWorkerSignaledWhileItStartsEndsAtOnceLeavingNoProcess() throws Exception {
    Path cds = Files.createTempDirectory("flows-cds-sigterm-it");
    cdsDirs.add(cds);
    Path log = Files.createTempFile(home, "worker", ".log");
    Process worker =
        new Launcher(home)
            .with("FLOWS_CDS_DIR", cds.toString())
            .start(log, "worker", "--flows", flowDir.toString());
    try {
      awaitJvm(worker);
      assertThat(read(log)).as("not ready yet").doesNotContain("ready");
      List<ProcessHandle> tree = tree(worker);
      worker.destroy();
      assertThat(worker.waitFor(15, TimeUnit.SECONDS)).as(read(log)).isTrue();
      assertThat(worker.exitValue()).as(read(log)).isIn(0, 143);
      assertThat(tree.stream().filter(ProcessHandle::isAlive).map(NoProcessLeftBehind::describe))
          .as("processes left running")
          .isEmpty();
    } finally {
      ProcessTree.stop(worker);
    }
  }

  /** The detached cache writer of a recording start is done with {@code cds}. */
  private static void awaitCacheWritten(Path cds) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (Files.isDirectory(cds) && recording(cds) && System.nanoTime() < until) {
      Thread.sleep(200);
    }
  }

  /** The JVM runs (the launcher's own process, or its child when the script does not exec it). */
  private static void awaitJvm(Process worker) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (tree(worker).stream().noneMatch(h -> h.info().command().orElse("").endsWith("/java"))) {
      assertThat(System.nanoTime() < until).as("the worker's JVM started").isTrue();
      Thread.sleep(20);
    }
  }

  private static List<ProcessHandle> tree(Process p) {
    List<ProcessHandle> all = new ArrayList<>();
    all.add(p.toHandle());
    all.addAll(p.descendants().toList());
    return all;
  }

  private static boolean recording(Path cds) throws IOException {
    try (Stream<Path> files = Files.list(cds)) {
      return files.anyMatch(f -> f.getFileName().toString().endsWith(".aot.recording"));
    }
  }

  private static String detach() throws Exception {
    Path file = flowDir.resolve("sleeper.flow.java");
    Launcher.Ran r = new Launcher(home).run("run", file.toString(), "--detach", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    return JSON.readTree(r.out().lines().findFirst().orElseThrow()).path("run").asText();
  }

  /** Waits until a step of the run (the body's command) is leased to the worker. */
  private static void awaitRunningStep(String run, Process worker, Path log) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (true) {
      JsonNode shown = new Launcher(home).run("runs", "show", run, "--json").json().path("run");
      if (!shown.path("children").isEmpty() && running(shown.path("children").get(0)) > 0) {
        return;
      }
      assertThat(worker.isAlive()).as(read(log)).isTrue();
      assertThat(System.nanoTime() < until).as("the command step runs; %s", read(log)).isTrue();
      Thread.sleep(200);
    }
  }

  private static int running(JsonNode run) {
    int n = 0;
    for (JsonNode step : run.path("steps")) {
      if ("running".equals(step.path("status").asText())) {
        n++;
      }
    }
    for (JsonNode child : run.path("children")) {
      n += running(child);
    }
    return n;
  }

  private static int workerRows() throws IOException, SQLException {
    JsonNode state = JSON.readTree(home.resolve("pg/server.json").toFile());
    String password = Files.readString(home.resolve("pg/password")).trim();
    try (Connection c =
            DriverManager.getConnection(
                state.path("jdbcUrl").asText(), EmbeddedServer.USER, password);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM flows.workers")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static String read(Path log) throws IOException {
    return Files.readString(log, StandardCharsets.UTF_8);
  }
}
