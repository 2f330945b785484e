package dev.flows.ops;

import static dev.flows.ops.Refusals.assertJsonRefused;
import static dev.flows.ops.Refusals.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code flows runs prune} against a migrated Postgres database of its own per test. */
class RunsPruneCommandTest {
  private static final WorkerId WORKER = new WorkerId("prune-test");
  private TestDatabase.Fresh db;
  private PostgresJournal journal;
  private Cli cli;
  private Path home;

  @BeforeEach
  void database() throws Exception {
    db = TestDatabase.fresh("runs_prune");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(2));
    home = Files.createTempDirectory("flows-home");
    cli =
        new Cli(
            Map.of(
                Session.HOME_VARIABLE, home.toString(), DatabaseTarget.URL_VARIABLE, db.jdbcUrl()),
            OpsConfig.defaults());
  }

  @AfterEach
  void close() {
    journal.close();
    PgBinaries.deleteTree(home);
  }

  private RunRef start(String key, Optional<RunRef> parent) {
    return journal
        .admit(
            new StartRun(
                Optional.empty(),
                key,
                Specs.named(key, Specs.command("a", "true")),
                parent,
                "test"),
            Admit.queued())
        .runId();
  }

  private void end(RunRef run, StepOutcome outcome) {
    for (ClaimedAttempt a :
        journal.claim(
            new ClaimRequest(WORKER, Set.of(StepKind.values()), 10, Duration.ofMinutes(1)))) {
      journal.complete(
          a.lease(),
          a.lease().runId().equals(run)
              ? outcome
              : new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode()));
    }
  }

  private static StepOutcome ok() {
    return new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode());
  }

  @Test
  void pruneRemovesEndedRunTreesInBatchesAndKeepsRunningAndParkedRuns() {
    RunRef succeeded = start("succeeded", Optional.empty());
    RunRef child = start("child", Optional.of(succeeded));
    end(child, ok());
    end(succeeded, ok());
    RunRef failed = start("failed", Optional.empty());
    end(
        failed,
        new StepOutcome.Failed(
            CompletionReason.WORKER_ERROR,
            JsonNodeFactory.instance.objectNode().put("diagnostic", "boom"),
            false));
    RunRef parked = start("parked", Optional.empty());
    end(
        parked,
        new StepOutcome.Parked(
            CompletionReason.WORKER_ERROR,
            ErrorCode.EFFECT_OUTCOME_UNKNOWN,
            JsonNodeFactory.instance.objectNode()));
    RunRef running = start("running", Optional.empty());

    Cli.Result dry = cli.run("runs", "prune", "--older-than", "0s", "--dry-run", "--json");
    assertThat(dry.exit()).as(dry.err()).isZero();
    assertThat(dry.json().path("dryRun").asBoolean()).isTrue();
    assertThat(dry.json().path("roots").asInt()).isEqualTo(2);
    assertThat(dry.json().path("runs").asInt()).isEqualTo(3);
    assertThat(dry.json().path("entries").asLong()).isPositive();
    assertThat(journal.run(succeeded)).isPresent();

    Cli.Result kept = cli.run("runs", "prune", "--json");
    assertThat(kept.exit()).as(kept.err()).isZero();
    assertThat(kept.json().path("runs").asInt()).as("nothing ended 30 days ago").isZero();

    Cli.Result r = cli.run("runs", "prune", "--older-than", "0s", "--batch", "1", "--json");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.json().path("roots").asInt()).isEqualTo(2);
    assertThat(r.json().path("runs").asInt()).isEqualTo(3);
    assertThat(r.json().path("entries").asLong()).isEqualTo(dry.json().path("entries").asLong());
    assertThat(r.json().path("pruneIds")).hasSize(2);
    assertThat(r.err()).contains("pruned 3 runs so far");
    for (RunRef gone : new RunRef[] {succeeded, child, failed}) {
      assertThat(journal.run(gone)).as(gone.value()).isEmpty();
    }
    assertThat(journal.run(parked)).isPresent();
    assertThat(journal.run(running)).isPresent();
    assertRefused(cli.run("runs", "show", succeeded.value()), "run_not_found", Exit.REFUSED);

    Cli.Result text = cli.run("runs", "prune", "--older-than", "0s");
    assertThat(text.exit()).isZero();
    assertThat(text.out()).startsWith("pruned 0 runs (0 roots, 0 journal entries)");
  }

  @Test
  void aBadPeriodOrBatchIsRefusedInOneLineAndNothingIsPruned() {
    RunRef ended = start("ended", Optional.empty());
    end(ended, ok());
    assertJsonRefused(
        cli.run("runs", "prune", "--older-than", "soon", "--json"), "config_invalid", Exit.REFUSED);
    assertRefused(
        cli.run("runs", "prune", "--older-than", "0s", "--batch", "0"),
        "config_invalid",
        Exit.REFUSED);
    assertRefused(
        cli.run("runs", "prune", "--older-than", "0s", "--pause", "-1s"),
        "config_invalid",
        Exit.REFUSED);
    assertThat(journal.run(ended)).isPresent();
  }

  @Test
  void thePausePacesTheBatchesAndZeroRunsThemBackToBack() {
    for (String key : new String[] {"a", "b", "c"}) {
      end(start(key, Optional.empty()), ok());
    }
    long t = System.nanoTime();
    Cli.Result paced =
        cli.run(
            "runs", "prune", "--older-than", "0s", "--batch", "1", "--pause", "400ms", "--json");
    Duration took = Duration.ofNanos(System.nanoTime() - t);
    assertThat(paced.exit()).as(paced.err()).isZero();
    assertThat(paced.json().path("roots").asInt()).isEqualTo(3);
    // Three batches and the empty one that ends the prune: a pause before each of the last three.
    assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(1_200));

    end(start("d", Optional.empty()), ok());
    Cli.Result backToBack =
        cli.run("runs", "prune", "--older-than", "0s", "--pause", "0s", "--json");
    assertThat(backToBack.exit()).as(backToBack.err()).isZero();
    assertThat(backToBack.json().path("roots").asInt()).isEqualTo(1);
  }
}
