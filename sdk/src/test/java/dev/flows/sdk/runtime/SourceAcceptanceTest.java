package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.RunSpecParser;
import dev.flows.kernel.spec.StepBody;
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
 * A worker runs a single-file flow only when it was given the source; its commands run in the flow
 * file's directory.
 */
class SourceAcceptanceTest {
  @TempDir Path dir;

  /** A flow source no other test in this JVM admits (a fresh comment makes a fresh hash). */
  private static String source(String className, String body) {
    return "// "
        + UUID.randomUUID()
        + "\n"
        + """
        import com.fasterxml.jackson.databind.JsonNode;
        import dev.flows.sdk.*;

        public class CLASS implements Flow<JsonNode, JsonNode> {
          public FlowHeader header() {
            return FlowHeader.named("accepted").build();
          }

          public JsonNode run(Ctx f, JsonNode input) {
            BODY
          }
        }
        """
            .replace("CLASS", className)
            .replace("BODY", body);
  }

  private static FlowsEngine engine(Journal journal) {
    return new FlowsEngine(
        journal,
        WorkerConfig.defaults().toBuilder()
            .pollInterval(Duration.ofMillis(20))
            .reconcileInterval(Duration.ofMillis(100))
            .build(),
        SdkConfig.DEFAULTS,
        McpClientConfig.DEFAULTS,
        McpCredentials.fromEnvironment());
  }

  /**
   * Admits the source as another process would: through the journal only, so this JVM never
   * registered it as a flow it started.
   */
  private static RunRef admitFromElsewhere(Journal journal, String source, Optional<String> dir) {
    FlowSource.Compiled c = FlowSource.compile("elsewhere", source);
    RunSpec spec =
        Lowering.root(
            c.flow().header(),
            new FlowBodyInstruction.Origin.SourceFlow(c.className(), source, c.sourceHash(), dir),
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

  @Test
  void aWorkerNotGivenAJournalSourceNeverClaimsItAndSaysWhyUntilAWorkerWithTheFileRunsIt()
      throws Exception {
    String src = source("Given", "return f.step(\"v\", () -> \"ran\");");
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    RunRef run = admitFromElsewhere(journal, src, Optional.empty());
    try (FlowsEngine without = engine(journal)) {
      without.startWorker();
      RunSnapshot waiting = await(journal, run, r -> r.waitingReason().isPresent());
      assertThat(waiting.waitingReason()).contains(FlowsEngine.UNACCEPTED_SOURCE);
      assertThat(waiting.steps().getFirst().attempts()).as("never claimed").isZero();
      assertThat(without.worker().stats().claimed()).isZero();

      Path flows = Files.createDirectories(dir.resolve("flows/nested"));
      Files.writeString(flows.resolve("given.flow.java"), src);
      try (FlowsEngine with = engine(journal).acceptSourcesUnder(List.of(dir.resolve("flows")))) {
        with.startWorker();
        RunSnapshot end = await(journal, run, r -> r.status().terminal());
        assertThat(end.status()).isEqualTo(RunStatus.SUCCEEDED);
        assertThat(end.waitingReason()).as("the claim cleared the reason").isEmpty();
        assertThat(with.worker().stats().claimed()).isPositive();
      }
      assertThat(without.worker().stats().claimed()).isZero();
    }
  }

  @Test
  void aWorkerAcceptingJournalSourcesRunsAnySourceItWasNotGiven() throws Exception {
    String src = source("Anything", "return f.step(\"v\", () -> \"ran\");");
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    RunRef run = admitFromElsewhere(journal, src, Optional.empty());
    try (FlowsEngine any = engine(journal).acceptJournalSources()) {
      any.startWorker();
      assertThat(await(journal, run, r -> r.status().terminal()).status())
          .isEqualTo(RunStatus.SUCCEEDED);
    }
  }

  @Test
  void aFlowsCommandsRunInItsFilesDirectoryRecordedInTheChildsSpec() throws Exception {
    Path flowDir = Files.createDirectories(dir.resolve("the flow's dir"));
    String src = source("Pwd", "return f.shell(\"pwd\").call();");
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    RunRef run = admitFromElsewhere(journal, src, Optional.of(flowDir.toString()));
    try (FlowsEngine any = engine(journal).acceptJournalSources()) {
      any.startWorker();
      RunSnapshot end = await(journal, run, r -> r.status().terminal());
      assertThat(end.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = end.steps().getFirst().output().orElseThrow();
      assertThat(out.path("stdout").asText()).isEqualTo(flowDir.toRealPath() + "\n");
      RunRef child = journal.children(run).getFirst();
      StepBody.Deterministic cmd =
          (StepBody.Deterministic)
              RunSpecParser.parse(journal.run(child).orElseThrow().spec())
                  .steps()
                  .getFirst()
                  .body();
      assertThat(cmd.cwd()).contains(flowDir.toString());
    }
  }

  @Test
  void aCommandWhoseFlowDirectoryIsNotOnTheWorkerFailsNamingTheDirectory() throws Exception {
    String missing = dir.resolve("gone").toString();
    String src = source("Gone", "return f.shell(\"true\").call();");
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    RunRef run = admitFromElsewhere(journal, src, Optional.of(missing));
    try (FlowsEngine any = engine(journal).acceptJournalSources()) {
      any.startWorker();
      RunSnapshot end = await(journal, run, r -> r.status().terminal());
      assertThat(end.status()).isEqualTo(RunStatus.FAILED);
      RunRef child = journal.children(run).getFirst();
      JsonNode tail =
          journal.entries(child).stream()
              .map(e -> e.entry())
              .filter(e -> e instanceof dev.flows.kernel.journal.JournalEntry.StepCompleted)
              .map(e -> ((dev.flows.kernel.journal.JournalEntry.StepCompleted) e).trajectoryTail())
              .flatMap(Optional::stream)
              .findFirst()
              .orElseThrow();
      assertThat(tail.path("diagnostic").asText()).isEqualTo("cwd_not_found");
      assertThat(tail.path("cwd").asText()).isEqualTo(missing);
      assertThat(journal.entries(child))
          .as("not retried: this worker will never have the directory")
          .filteredOn(e -> e.entry().type().equals("step.attempt.started"))
          .hasSize(1);
    }
  }
}
