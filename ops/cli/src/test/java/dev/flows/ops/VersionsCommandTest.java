package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.PostgresWorkerRoster;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flows versions}: a class flow at versions 1 and 2 in one worker, runs of version 1 started
 * before version 2 was there, each finishing on its own code while the counts follow.
 */
class VersionsCommandTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Version 1: one step, then waits for {@code go}. */
  public static final class TriageV1 implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("triage").version("1").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      f.step("load", () -> 1);
      f.awaitSignal("go", Duration.ofHours(24));
      return JsonNodeFactory.instance.textNode("v1");
    }
  }

  /** Version 2: a step more before the wait. */
  public static final class TriageV2 implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("triage").version("2").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      f.step("load", () -> 1);
      f.step("fraud-check", () -> true);
      f.awaitSignal("go", Duration.ofHours(24));
      return JsonNodeFactory.instance.textNode("v2");
    }
  }

  private TestDatabase.Fresh db;
  private PostgresJournal journal;
  private Cli cli;
  private final List<FlowsEngine> engines = new ArrayList<>();
  @TempDir Path dir;

  @BeforeEach
  void setUp() {
    db = TestDatabase.fresh("versions_cli");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(6));
    cli =
        new Cli(
            Map.of(
                "FLOWS_HOME", dir.resolve("home").toString(), "FLOWS_DATABASE_URL", db.jdbcUrl()));
  }

  @AfterEach
  void tearDown() {
    engines.forEach(FlowsEngine::close);
    journal.close();
  }

  /** A worker with {@code flows} registered, announced in flows.workers, started. */
  private FlowsEngine worker(String id, Flow<?, ?>... flows) {
    FlowsEngine e =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder()
                .pollInterval(Duration.ofMillis(100))
                .reconcileInterval(Duration.ofMillis(200))
                .stopGrace(Duration.ofSeconds(1))
                .build(),
            SdkConfig.DEFAULTS.toBuilder().suspendAfter(Duration.ofMillis(100)).build(),
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment(),
            InstantSource.system(),
            new WorkerId(id));
    for (Flow<?, ?> f : flows) {
      e.register(f);
    }
    e.worker().announceTo(new PostgresWorkerRoster(db.dataSource()));
    e.startWorker();
    engines.add(e);
    return e;
  }

  /** Starts a run of {@code flow}, the very instance registered with {@code e}. */
  private RunRef start(FlowsEngine e, Flow<?, ?> flow) {
    return e.start(
            new LoadedFlow(
                flow,
                new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
                java.util.Set.of(),
                dir),
            JsonNodeFactory.instance.objectNode(),
            Optional.empty())
        .runId();
  }

  /** Waits until the run's body gave its attempt back, waiting for its signal. */
  private void awaitSuspended(RunRef run) throws InterruptedException {
    long until = System.nanoTime() + WAIT.toNanos();
    while (true) {
      StepSnapshot body = journal.run(run).orElseThrow().steps().getFirst();
      if (body.status().wire().equals("ready") && body.attempts() > 0) {
        return;
      }
      assertThat(System.nanoTime()).as("run " + run + " waits on its signal").isLessThan(until);
      Thread.sleep(50);
    }
  }

  private JsonNode awaitOutput(RunRef run) throws InterruptedException {
    long until = System.nanoTime() + WAIT.toNanos();
    while (!journal.run(run).orElseThrow().status().terminal()) {
      assertThat(System.nanoTime()).as("run " + run + " ends").isLessThan(until);
      Thread.sleep(50);
    }
    assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);
    return journal.run(run).orElseThrow().steps().getFirst().output().orElseThrow();
  }

  private JsonNode versions() {
    Cli.Result r = cli.run("--json", "versions", "triage");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.json().path("flow").asText()).isEqualTo("triage");
    return r.json().path("versions");
  }

  private static List<String> counts(JsonNode versions) {
    return StreamSupport.stream(versions.spliterator(), false)
        .map(
            v ->
                v.path("version").asText()
                    + " "
                    + v.path("runs").asLong()
                    + " "
                    + v.path("workers")
                    + (v.path("stranded").asBoolean() ? " stranded" : "")
                    + (v.path("retirable").asBoolean() ? " retirable" : ""))
        .toList();
  }

  @Test
  void runsOfVersionsOneAndTwoFinishOnTheirOwnCodeWhileVersionsShowsTheirCountsFallToZero()
      throws Exception {
    TriageV1 v1 = new TriageV1();
    FlowsEngine onlyV1 = worker("w-v1", v1);
    List<RunRef> old = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      old.add(start(onlyV1, v1));
    }
    for (RunRef r : old) {
      awaitSuspended(r);
    }
    assertThat(counts(versions())).containsExactly("1 3 [\"w-v1\"]");
    assertThat(versions().get(0).path("route").asText()).isEqualTo("flow:triage@1");
    assertThat(versions().get(0).path("oldestStartedAt").asText()).isNotEmpty();

    // Its worker stopped: version 1's runs wait, and the command says so.
    onlyV1.close();
    engines.remove(onlyV1);
    assertThat(counts(versions())).containsExactly("1 3 [] stranded");
    Cli.Result text = cli.run("versions", "triage");
    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("flow triage: 1 version(s)")
        .contains("version 1 (triage@1): 3 runs, oldest started ")
        .contains("workers: none (no worker serves it: its runs wait)");

    // One worker with both versions: the old runs replay on version 1, new ones start on 2.
    TriageV2 v2 = new TriageV2();
    FlowsEngine both = worker("w-both", new TriageV1(), v2);
    List<RunRef> fresh = List.of(start(both, v2), start(both, v2));
    for (RunRef r : fresh) {
      awaitSuspended(r);
    }
    assertThat(counts(versions())).containsExactly("1 3 [\"w-both\"]", "2 2 [\"w-both\"]");

    for (RunRef r : old) {
      cli.run("runs", "signal", r.value(), "go");
    }
    for (RunRef r : old) {
      assertThat(awaitOutput(r).asText()).isEqualTo("v1");
    }
    assertThat(counts(versions()))
        .containsExactly("2 2 [\"w-both\"]", "1 0 [\"w-both\"] retirable");
    assertThat(cli.run("versions", "triage").out())
        .contains("version 1 (triage@1): 0 runs; workers: w-both (can be retired)")
        .contains("version 2 (triage@2): 2 runs, oldest started ");

    for (RunRef r : fresh) {
      cli.run("runs", "signal", r.value(), "go");
    }
    for (RunRef r : fresh) {
      assertThat(awaitOutput(r).asText()).isEqualTo("v2");
    }
    assertThat(counts(versions()))
        .containsExactly("1 0 [\"w-both\"] retirable", "2 0 [\"w-both\"]");
  }

  @Test
  void anUnknownFlowHasNoVersionAndTheCommandSaysSo() {
    assertThat(versions()).isEmpty();
    Cli.Result text = cli.run("versions", "triage");
    assertThat(text.exit()).isZero();
    assertThat(text.out().strip())
        .isEqualTo("flow triage: no version has runs not ended or a live worker");
    assertThat(cli.run("versions", " ").exit()).isEqualTo(Exit.REFUSED);
  }
}
