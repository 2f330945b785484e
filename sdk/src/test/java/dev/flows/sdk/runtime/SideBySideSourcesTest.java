package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.compile.FlowSource;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several versions of one single-file flow served by one worker given a flow directory: the files
 * of each header version side by side, and the sources a file held before it was edited, kept in
 * the directory's archive across worker restarts.
 */
class SideBySideSourcesTest {
  @TempDir Path dir;

  /** A flow source no other test in this JVM admits (a fresh comment makes a fresh hash). */
  private static String source(String name, String version, String body) {
    return source(name, version, "", body);
  }

  private static String source(String name, String version, String header, String body) {
    return "// "
        + UUID.randomUUID()
        + "\n"
        + """
        import com.fasterxml.jackson.databind.JsonNode;
        import com.fasterxml.jackson.databind.node.JsonNodeFactory;
        import dev.flows.sdk.*;
        import java.time.Duration;

        public class Side implements Flow<JsonNode, JsonNode> {
          public FlowHeader header() {
            return FlowHeader.named("NAME").version("VERSION")HEADER.build();
          }

          public JsonNode run(Ctx f, JsonNode input) {
            BODY
          }
        }
        """
            .replace("NAME", name)
            .replace("VERSION", version)
            .replace("HEADER", header)
            .replace("BODY", body);
  }

  private static String waiting(String version) {
    return source(
        "waiting",
        version,
        "f.awaitSignal(\"go\", Duration.ofHours(1));\n"
            + "return f.step(\"after\", () -> \"v"
            + version
            + "\");");
  }

  private static FlowsEngine engine(Journal journal, Path flows) {
    return new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder()
                .pollInterval(Duration.ofMillis(20))
                .reconcileInterval(Duration.ofMillis(100))
                .build(),
            SdkConfig.DEFAULTS.toBuilder().suspendAfter(Duration.ofMillis(200)).build(),
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment())
        .acceptSourcesUnder(List.of(flows));
  }

  /** Admits the source as another process would: through the journal only. */
  private static RunRef admitFromElsewhere(Journal journal, String source) {
    FlowSource.Compiled c = FlowSource.compile("elsewhere", source);
    RunSpec spec =
        Lowering.root(
            c.flow().header(),
            new FlowBodyInstruction.Origin.SourceFlow(
                c.className(), source, c.sourceHash(), Optional.empty()),
            JsonNodeFactory.instance.objectNode(),
            Inventory.empty(),
            SdkConfig.DEFAULTS);
    return journal.admit(StartRun.of("k-" + UUID.randomUUID(), spec), Admit.queued()).runId();
  }

  private static RunSnapshot await(Journal journal, RunRef run, Predicate<RunSnapshot> done)
      throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    RunSnapshot now = journal.run(run).orElseThrow();
    while (!done.test(now) && System.nanoTime() < until) {
      journal.awaitWork(Duration.ofMillis(50));
      now = journal.run(run).orElseThrow();
    }
    assertThat(done).as("run %s reached the expected state: %s", run, now).accepts(now);
    return now;
  }

  /** The body gave its attempt back: the next one must be claimed again, by its source's route. */
  private static boolean suspended(RunSnapshot r) {
    return r.steps().getFirst().lastReason().equals(Optional.of(CompletionReason.SUSPENDED));
  }

  private static String output(RunSnapshot r) {
    return r.steps().getFirst().output().orElseThrow().asText();
  }

  @Test
  void aChildByNameTakesTheFileOfTheNewestHeaderVersionWhileARunOfTheOlderFileStaysOnIt()
      throws Exception {
    Path flows = dir.resolve("flows");
    Files.createDirectories(flows.resolve("v1"));
    Files.createDirectories(flows.resolve("v10"));
    Files.createDirectories(flows.resolve("v9"));
    Files.createDirectories(flows.resolve("callers"));
    String v1 = source("side", "1", "return f.step(\"which\", () -> \"one\");");
    Files.writeString(flows.resolve("v1/side.flow.java"), v1);
    Files.writeString(
        flows.resolve("v10/side.flow.java"),
        source("side", "10", "return f.step(\"which\", () -> \"ten\");"));
    Files.writeString(
        flows.resolve("v9/side.flow.java"),
        source("side", "9", "return f.step(\"which\", () -> \"nine\");"));
    String caller = source("caller", "1", "return f.flow(\"side\").call(input);");
    Files.writeString(flows.resolve("callers/caller.flow.java"), caller);
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine worker = engine(journal, flows)) {
      worker.startWorker();
      RunRef started = admitFromElsewhere(journal, caller);
      RunSnapshot done = await(journal, started, r -> r.status().terminal());
      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(output(done)).as("the child ran version 10, not 9 nor 1").isEqualTo("ten");

      RunRef old = admitFromElsewhere(journal, v1);
      RunSnapshot oldDone = await(journal, old, r -> r.status().terminal());
      assertThat(oldDone.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(output(oldDone)).as("a run of version 1 stays on its code").isEqualTo("one");
    }
  }

  @Test
  void aRunOfAnEditedFileGoesOnFromTheArchiveAcrossARestartUntilItsArchivedSourceIsDeleted()
      throws Exception {
    Path flows = Files.createDirectories(dir.resolve("flows"));
    Path file = flows.resolve("waiting.flow.java");
    String v1 = waiting("1");
    Files.writeString(file, v1);
    Path archived =
        flows
            .resolve(Path.of(".flows", "sources"))
            .resolve(FlowSource.hash(v1) + FlowSource.SUFFIX);
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    RunRef beforeEdit;
    RunRef beforeRestart;
    try (FlowsEngine first = engine(journal, flows)) {
      first.startWorker();
      beforeEdit = admitFromElsewhere(journal, v1);
      beforeRestart = admitFromElsewhere(journal, v1);
      await(journal, beforeEdit, SideBySideSourcesTest::suspended);
      await(journal, beforeRestart, SideBySideSourcesTest::suspended);

      Files.writeString(file, waiting("2"));
      Thread.sleep(SourceDirectories.RESCAN.toMillis() * 2);
      journal.sendSignal(beforeEdit, "go", JsonNodeFactory.instance.nullNode(), Optional.empty());
      RunSnapshot done = await(journal, beforeEdit, r -> r.status().terminal());
      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(output(done)).as("the old text, though the file changed").isEqualTo("v1");
    }
    assertThat(archived).hasContent(v1);
    try (FlowsEngine restarted = engine(journal, flows)) {
      restarted.startWorker();
      journal.sendSignal(
          beforeRestart, "go", JsonNodeFactory.instance.nullNode(), Optional.empty());
      RunSnapshot done = await(journal, beforeRestart, r -> r.status().terminal());
      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(output(done)).as("served after the restart").isEqualTo("v1");

      Files.delete(archived);
      Thread.sleep(SourceDirectories.RESCAN.toMillis() * 2);
      RunRef retired = admitFromElsewhere(journal, v1);
      RunSnapshot waits = await(journal, retired, r -> r.waitingReason().isPresent());
      assertThat(waits.waitingReason()).contains(FlowsEngine.UNACCEPTED_SOURCE);
      assertThat(waits.steps().getFirst().attempts()).as("never claimed").isZero();
    }
  }

  @Test
  void aHeaderScheduleDeclaredByTwoVersionsOfAFileTicksRunsOfTheNewest() throws Exception {
    Path flows = dir.resolve("flows");
    String every = ".schedule(Schedule.every(Duration.ofSeconds(1)).overlap(\"allow-all\"))";
    String v1 = source("side-ticks", "1", every, "return f.step(\"which\", () -> \"one\");");
    String v2 = source("side-ticks", "2", every, "return f.step(\"which\", () -> \"two\");");
    Files.writeString(Files.createDirectories(flows.resolve("v1")).resolve("ticks.flow.java"), v1);
    Files.writeString(Files.createDirectories(flows.resolve("v2")).resolve("ticks.flow.java"), v2);
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine worker = engine(journal, flows)) {
      worker.startWorker();
      RunRef tick = null;
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (tick == null && System.nanoTime() < until) {
        Thread.sleep(50);
        tick =
            journal.scheduleEntries("side-ticks").stream()
                .map(e -> e.entry())
                .filter(ScheduleEntry.TickStarted.class::isInstance)
                .map(e -> ((ScheduleEntry.TickStarted) e).runId())
                .findFirst()
                .orElse(null);
      }
      assertThat(tick).as("a tick started a run").isNotNull();
      RunSnapshot done = await(journal, tick, r -> r.status().terminal());
      assertThat(output(done)).isEqualTo("two");
      assertThat(done.spec().toString()).contains(FlowSource.hash(v2));
    }
  }
}
