package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.sdk.runtime.FlowsEngine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What {@code flows worker} prints about its attempts ({@link WorkerLines} on a real worker): a
 * line per attempt taken and per attempt ended, and with {@code --quiet} only the attempts that
 * failed.
 */
class WorkerLinesTest {
  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;

  @BeforeAll
  static void database() {
    db = TestDatabase.fresh("worker_lines");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(8));
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  /** Runs a succeeding and a failing command run on a worker observed by WorkerLines. */
  private static List<String> linesOf(boolean quiet, RunRef[] runs) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    Session session = new Session(o, o, Map.of(), OpsConfig.defaults(), new GlobalOptions());
    try (FlowsEngine engine = EngineSupport.engine(journal, 4)) {
      engine.worker().observeAttempts(new WorkerLines(session, quiet));
      engine.startWorker();
      runs[0] = start("ok", "true");
      runs[1] = start("bad", "false");
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!(ended(runs[0]) && ended(runs[1])) && System.nanoTime() < until) {
        Thread.sleep(50);
      }
    }
    return out.toString(StandardCharsets.UTF_8).lines().toList();
  }

  private static RunRef start(String flow, String command) {
    return journal
        .admit(
            StartRun.of(
                flow + "-" + UUID.randomUUID(), Specs.named(flow, Specs.command("a", command))),
            Admit.queued())
        .runId();
  }

  private static boolean ended(RunRef run) {
    return journal.run(run).orElseThrow().status().terminal();
  }

  @Test
  void theWorkerSaysEachAttemptItTakesAndHowAndHowFastItEnded() throws Exception {
    RunRef[] runs = new RunRef[2];
    List<String> lines = linesOf(false, runs);
    String ok = runs[0].value();
    assertThat(lines).contains("run " + ok + " a (command true) claimed (attempt 1)");
    assertThat(lines)
        .anySatisfy(
            l ->
                assertThat(l)
                    .matches(
                        "run " + ok + " a \\(command true\\) succeeded \\(attempt 1, \\d+ ms\\)"));
    assertThat(lines)
        .anySatisfy(
            l -> assertThat(l).startsWith("run " + runs[1].value() + " a (command false) failed:"));
  }

  @Test
  void quietPrintsOnlyTheAttemptsThatEndedInAnError() throws Exception {
    RunRef[] runs = new RunRef[2];
    List<String> lines = linesOf(true, runs);
    assertThat(lines).noneMatch(l -> l.contains(runs[0].value()));
    assertThat(lines).noneMatch(l -> l.contains("claimed"));
    assertThat(lines)
        .anySatisfy(
            l -> assertThat(l).startsWith("run " + runs[1].value() + " a (command false) failed:"));
  }
}
