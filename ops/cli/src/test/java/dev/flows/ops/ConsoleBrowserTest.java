package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.RunRef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The web console in a real browser: Playwright ({@code ops/ui-test}, npm {@code playwright-core})
 * drives Debian's {@code chromium} through the list, a filter, a run's detail and an action with
 * and without the token ({@code ops/ui-test/console.spec.mjs}), and writes the screenshot of the
 * detail page ({@code ops/ui-test/run-detail.png}). CI installs chromium and playwright-core
 * ({@code .ci/run}); without them this test fails saying what is missing.
 */
class ConsoleBrowserTest {
  private static final Path UI_TEST = Path.of("ui-test").toAbsolutePath();
  private static final Path CHROMIUM =
      Path.of(Optional.ofNullable(System.getenv("FLOWS_CHROMIUM")).orElse("/usr/bin/chromium"));
  private static final String TOKEN = "browser-test-token";
  private static final long CHILD_MS = 300;
  private static final long TIMER_MS = 400;
  private static final long SIGNAL_MS = 300;

  @Test
  void theConsoleWorksInChromiumListFilterDetailAndActionsWithAndWithoutTheToken()
      throws Exception {
    Optional<Path> node = onPath("node");
    assertThat(node)
        .as("node is not installed: .ci/run installs it (apt-get install nodejs npm)")
        .isPresent();
    assertThat(Files.isExecutable(CHROMIUM))
        .as(CHROMIUM + " is missing: .ci/run installs it (apt-get install chromium)")
        .isTrue();
    assertThat(UI_TEST.resolve("node_modules/playwright-core/package.json"))
        .as(
            "playwright-core is not installed in ops/ui-test: .ci/run installs it (npm ci"
                + " --prefix ops/ui-test)")
        .exists();

    TestDatabase.Fresh db = TestDatabase.fresh("console_browser");
    try (PostgresJournal journal =
            PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(4));
        Console console =
            Console.start(
                journal, db.dataSource(), Console.Settings.localhost(0, Optional.of(TOKEN)))) {
      ConsoleWorkload work = new ConsoleWorkload(journal);
      RunRef failed = work.failed("browser-failed", "disk_full");
      RunRef detail = work.mcpCall("browser-mcp");
      RunRef running = work.running("browser-running");
      RunRef[] body = work.body("browser-body", CHILD_MS, TIMER_MS, SIGNAL_MS);
      RunRef many = work.manyMemos("browser-many", 500);
      // Last: claiming another run's step would take this one's answered call.
      RunRef asks = work.parkedForInput("browser-asks");
      ObjectNode runs = JsonNodeFactory.instance.objectNode();
      runs.put("body", body[0].value()).put("child", body[1].value()).put("many", many.value());
      runs.put("asks", asks.value());
      runs.put("childMs", CHILD_MS).put("timerMs", TIMER_MS).put("signalMs", SIGNAL_MS);
      runs.put("failed", failed.value())
          .put("detail", detail.value())
          .put("running", running.value())
          .put("flow", "browser-running");
      runs.set("overview", overview(db));
      runs.put("key", idempotencyKey(db, detail));
      runs.put("ended", "browser-failed");
      Path screenshot = UI_TEST.resolve("run-detail.png");
      Path log = Files.createTempFile("console-spec", ".log");
      Process p =
          new ProcessBuilder(
                  List.of(
                      node.get().toString(),
                      UI_TEST.resolve("console.spec.mjs").toString(),
                      console.uri().toString(),
                      TOKEN,
                      runs.toString(),
                      screenshot.toString()))
              .directory(UI_TEST.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      boolean ended = p.waitFor(180, TimeUnit.SECONDS);
      if (!ended) {
        p.destroyForcibly().waitFor();
      }
      String out = Files.readString(log, StandardCharsets.UTF_8);
      Files.deleteIfExists(log);
      assertThat(ended).as("console.spec.mjs did not end within 180 s:\n" + out).isTrue();
      assertThat(p.exitValue()).as(out).isZero();
      assertThat(out)
          .contains("ok the run list shows the runs newest first")
          .contains("ok the overview charts show the counts of the known load")
          .contains("ok searching an idempotency key finds its run")
          .contains("ok a filter submitted from the form narrows the list")
          .contains("ok a run's detail shows input, steps, effects and the journal")
          .contains(
              "ok a run's timeline shows its child with the parked call, the timer and the signal"
                  + " wait in order, with their durations")
          .contains("ok selecting a call shows its arguments, output and idempotency key")
          .contains("ok the JSON view is one click away")
          .contains("ok a 1,000-entry run's page renders, its load time printed")
          .contains("ok answering an input request through the generated form readies the step")
          .contains("ok an action without the token is refused")
          .contains("ok a form posted from another origin is refused, even with the token")
          .contains("ok an action with the token is done")
          .contains("ok the list updates itself while open")
          .contains("console.spec: all checks passed")
          .doesNotContain("FAIL");
      System.out.println(out.lines().filter(l -> l.contains("1,000-entry")).findFirst().orElse(""));
      assertThat(screenshot).exists();
      assertThat(Files.size(screenshot)).isGreaterThan(10_000);
    }
  }

  /** The root runs of the load by what the overview counts: all started in the last hour. */
  private static ObjectNode overview(TestDatabase.Fresh db) throws Exception {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    try (Connection c = db.dataSource().getConnection();
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT count(*), count(*) FILTER (WHERE status = 'succeeded'),"
                        + " count(*) FILTER (WHERE status = 'failed'),"
                        + " count(*) FILTER (WHERE status = 'parked'),"
                        + " count(*) FILTER (WHERE status = 'running')"
                        + " FROM flows.runs WHERE parent_run_id IS NULL")) {
      rs.next();
      String[] names = {"started", "succeeded", "failed", "parked", "waiting"};
      for (int i = 0; i < names.length; i++) {
        o.put(names[i], rs.getLong(i + 1));
      }
    }
    return o;
  }

  private static String idempotencyKey(TestDatabase.Fresh db, RunRef run) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT idempotency_key FROM flows.effect_elections WHERE run_id = ?")) {
      ps.setString(1, run.value());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("the MCP call of " + run + " has an election").isTrue();
        return rs.getString(1);
      }
    }
  }

  private static Optional<Path> onPath(String program) throws IOException {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
