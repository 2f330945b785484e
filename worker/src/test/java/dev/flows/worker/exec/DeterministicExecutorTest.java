package dev.flows.worker.exec;

import static dev.flows.worker.Attempts.argv;
import static dev.flows.worker.Attempts.claimed;
import static dev.flows.worker.Attempts.shell;
import static dev.flows.worker.Attempts.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.spec.StepBody;
import dev.flows.worker.CancellationToken;
import dev.flows.worker.EffectGate;
import dev.flows.worker.StepExecution;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeterministicExecutorTest {
  private static final WorkerConfig CONFIG =
      WorkerConfig.defaults().toBuilder().killGrace(Duration.ofMillis(500)).build();
  private static final EffectGate NO_EFFECTS =
      new EffectGate() {
        @Override
        public dev.flows.kernel.journal.EffectElection record(String surfacePath) {
          throw new AssertionError("deterministic steps record no effects");
        }

        @Override
        public void confirm(String surfacePath, Optional<JsonNode> output) {
          throw new AssertionError("deterministic steps confirm no effects");
        }
      };

  @TempDir Path dir;

  private StepOutcome run(StepBody body, OptionalLong timeoutMs, CancellationToken token) {
    return new DeterministicExecutor(CONFIG)
        .execute(new StepExecution(claimed(step("s", body, timeoutMs)), token, NO_EFFECTS));
  }

  private StepOutcome run(StepBody body) {
    return run(body, OptionalLong.empty(), new CancellationToken());
  }

  @Test
  void aZeroExitSucceedsWithItsStdoutAndParsedJson() {
    StepOutcome outcome = run(shell("echo '{\"n\": 3}'; echo warn >&2"));

    assertThat(outcome).isInstanceOf(StepOutcome.Succeeded.class);
    JsonNode out = ((StepOutcome.Succeeded) outcome).output();
    assertThat(out.get("exitCode").asInt()).isZero();
    assertThat(out.get("stdout").asText()).isEqualTo("{\"n\": 3}\n");
    assertThat(out.get("stderr").asText()).isEqualTo("warn\n");
    assertThat(out.get("json").get("n").asInt()).isEqualTo(3);
  }

  @Test
  void plainTextStdoutHasNoJsonField() {
    StepOutcome outcome = run(argv("echo", "hello", "world"));

    JsonNode out = ((StepOutcome.Succeeded) outcome).output();
    assertThat(out.get("stdout").asText()).isEqualTo("hello world\n");
    assertThat(out.has("json")).isFalse();
  }

  @Test
  void argvIsNotInterpretedByAShell() {
    StepOutcome outcome = run(argv("echo", "$HOME;", "`id`"));

    assertThat(((StepOutcome.Succeeded) outcome).output().get("stdout").asText())
        .isEqualTo("$HOME; `id`\n");
  }

  @Test
  void theAttemptIsVisibleToTheCommandThroughItsEnvironment() {
    StepOutcome outcome = run(shell("printf '%s %s' \"$FLOWS_STEP_ID\" \"$FLOWS_ATTEMPT\""));

    assertThat(((StepOutcome.Succeeded) outcome).output().get("stdout").asText()).isEqualTo("s 1");
  }

  @Test
  void aCommandWithACwdRunsInThatDirectory() throws Exception {
    Path where = Files.createDirectory(dir.resolve("flow dir"));
    StepOutcome outcome =
        run(
            new StepBody.Deterministic(
                java.util.List.of("pwd"), true, Optional.of(where.toString())));

    assertThat(((StepOutcome.Succeeded) outcome).output().get("stdout").asText())
        .isEqualTo(where.toRealPath() + "\n");
  }

  @Test
  void aCommandWhoseCwdIsNotOnThisWorkerFailsWithoutRetryNamingTheDirectory() {
    String missing = dir.resolve("not-here").toString();
    StepOutcome outcome =
        run(new StepBody.Deterministic(java.util.List.of("true"), true, Optional.of(missing)));

    StepOutcome.Failed failed = (StepOutcome.Failed) outcome;
    assertThat(failed.retryable()).isFalse();
    assertThat(failed.reason()).isEqualTo(CompletionReason.WORKER_ERROR);
    assertThat(failed.trajectoryTail().path("diagnostic").asText()).isEqualTo("cwd_not_found");
    assertThat(failed.trajectoryTail().path("cwd").asText()).isEqualTo(missing);
    assertThat(failed.trajectoryTail().path("message").asText()).contains(missing);
  }

  @Test
  void aNonZeroExitIsARetryableWorkerErrorWithTails() {
    StepOutcome outcome = run(shell("echo out; echo boom >&2; exit 3"));

    StepOutcome.Failed failed = (StepOutcome.Failed) outcome;
    assertThat(failed.reason()).isEqualTo(CompletionReason.WORKER_ERROR);
    assertThat(failed.retryable()).isTrue();
    assertThat(failed.trajectoryTail().get("diagnostic").asText()).isEqualTo("exit_nonzero");
    assertThat(failed.trajectoryTail().get("exitCode").asInt()).isEqualTo(3);
    assertThat(failed.trajectoryTail().get("stdout").asText()).isEqualTo("out\n");
    assertThat(failed.trajectoryTail().get("stderr").asText()).isEqualTo("boom\n");
  }

  @Test
  void tailsKeepOnlyTheLastBytesWithinTheCap() {
    WorkerConfig small = CONFIG.toBuilder().tailCapBytes(64).build();
    StepOutcome outcome =
        new DeterministicExecutor(small)
            .execute(
                new StepExecution(
                    claimed(step("s", shell("seq 1 5000; exit 1"), OptionalLong.empty())),
                    new CancellationToken(),
                    NO_EFFECTS));

    JsonNode tail = ((StepOutcome.Failed) outcome).trajectoryTail();
    assertThat(tail.get("stdout").asText()).hasSize(32).endsWith("4999\n5000\n");
    assertThat(tail.get("stdoutTruncated").asBoolean()).isTrue();
    assertThat(tail.get("stderrTruncated").asBoolean()).isFalse();
  }

  @Test
  void aMissingProgramIsARetryableWorkerError() {
    StepOutcome outcome = run(argv("/nonexistent/flows-no-such-program"));

    assertThat(((StepOutcome.Failed) outcome).reason()).isEqualTo(CompletionReason.WORKER_ERROR);
  }

  @Test
  void aGrandchildThatIgnoresSigtermIsGoneAfterTheTimeout() throws Exception {
    Path pids = dir.resolve("pids");
    // The child starts a grandchild that ignores SIGTERM, records both pids, and waits.
    String script =
        "sh -c 'trap \"\" TERM; while true; do sleep 0.1; done' & echo $$ $! > " + pids + "; wait";

    StepOutcome outcome = run(shell(script), OptionalLong.of(1_000), new CancellationToken());

    StepOutcome.Failed failed = (StepOutcome.Failed) outcome;
    assertThat(failed.reason()).isEqualTo(CompletionReason.TIMEOUT);
    assertThat(failed.trajectoryTail().get("diagnostic").asText()).isEqualTo("timeout");
    String[] both = Files.readString(pids).trim().split(" ");
    assertThat(both).hasSize(2);
    for (String pid : both) {
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> ProcessHandle.of(Long.parseLong(pid)).map(p -> !p.isAlive()).orElse(true));
    }
  }

  @Test
  void aCancelTerminatesTheGroupAndAnswersARetryableCancel() throws Exception {
    Path pids = dir.resolve("pids");
    CancellationToken token = new CancellationToken();
    String script = "sleep 300 & echo $! > " + pids + "; wait";
    Thread canceler =
        Thread.ofVirtual()
            .start(
                () -> {
                  await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(pids));
                  token.cancel(CancellationToken.Cause.WORKER_SHUTDOWN);
                });

    StepOutcome outcome = run(shell(script), OptionalLong.empty(), token);
    canceler.join();

    StepOutcome.Failed failed = (StepOutcome.Failed) outcome;
    assertThat(failed.retryable()).isTrue();
    assertThat(failed.trajectoryTail().get("diagnostic").asText()).isEqualTo("canceled");
    assertThat(failed.trajectoryTail().get("cause").asText()).isEqualTo("worker_shutdown");
    long sleeper = Long.parseLong(Files.readString(pids).trim());
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> ProcessHandle.of(sleeper).map(p -> !p.isAlive()).orElse(true));
  }

  @Test
  void backgroundProcessesLeftByASuccessfulCommandAreTerminated() throws Exception {
    Path pids = dir.resolve("pids");
    StepOutcome outcome =
        run(shell("sleep 300 > /dev/null 2>&1 & echo $! > " + pids + "; echo done"));

    assertThat(outcome).isInstanceOf(StepOutcome.Succeeded.class);
    long sleeper = Long.parseLong(Files.readString(pids).trim());
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> ProcessHandle.of(sleeper).map(p -> !p.isAlive()).orElse(true));
  }
}
