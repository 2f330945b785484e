package dev.flows.worker.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.DurableTasks;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.ExpiredAttempt;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.CancellationToken;
import dev.flows.worker.EffectGate;
import dev.flows.worker.StepExecution;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Task-backed calls against the real task test server (2026-07-28 over stdio, tasks kept in a file;
 * 2025-11-25 experimental tasks), through the executor, on the in-memory journal.
 */
class TaskCallsTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Duration POLL_MIN = Duration.ofMillis(50);
  private static final Duration POLL_MAX = Duration.ofMillis(400);
  private static McpSessions sessions;
  private static Path dir;
  private static Path events;
  private static Path state;
  private static JsonNode modern;
  private static JsonNode legacy;
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final McpToolExecutor executor = new McpToolExecutor(sessions, journal, clock);

  @BeforeAll
  static void server() throws IOException {
    sessions =
        new McpSessions(
            McpClientConfig.DEFAULTS.withTaskPolls(POLL_MIN, POLL_MAX),
            McpCredentials.fromEnvironment());
    dir = Files.createTempDirectory("task-calls");
    events = dir.resolve("events.jsonl");
    state = dir.resolve("tasks.json");
    modern =
        McpServerConfigJson.write(
            Jvm.taskStdioServer("jobs", "--state=" + state, "--events=" + events)
                .withProtocol(McpProtocol.V2026_07_28));
    legacy =
        McpServerConfigJson.write(
            Jvm.taskStdioServer(
                    "jobs25",
                    "--state=" + dir.resolve("tasks25.json"),
                    "--events=" + events,
                    "--protocol=2025-11-25")
                .withProtocol(McpProtocol.V2025_11_25));
  }

  @AfterAll
  static void close() {
    sessions.close();
  }

  // ---- steps and attempts

  private ClaimedAttempt callStep(
      String tool, JsonNode args, JsonNode connection, ObjectNode with) {
    return callStep(tool, args, connection, with, 2_000);
  }

  /** A call step whose own timeout is {@code timeoutMs}, claimed. */
  private ClaimedAttempt callStep(
      String tool, JsonNode args, JsonNode connection, ObjectNode with, long timeoutMs) {
    String server = connection.path("name").asText();
    ObjectNode in = JSON.objectNode().put("type", "mcp").put("server", server).put("tool", tool);
    in.set("input", args);
    in.set("connection", connection);
    in.put("mayReperform", false);
    in.setAll(with);
    StepSpec call =
        new StepSpec(
            "call",
            List.of(),
            args,
            3,
            new BackoffPolicy(1, 1, 1.0, 0),
            OptionalLong.empty(),
            OptionalLong.of(timeoutMs),
            new StepBody.Agent(in, RecoveryMode.INSPECT, List.of("/mcp/" + server + "/" + tool)));
    journal.admit(
        StartRun.of("k" + System.nanoTime(), new RunSpec(RunSpec.VERSION, "t", List.of(call))),
        Admit.queued());
    return claim();
  }

  private ClaimedAttempt slow(long ms, JsonNode connection) {
    return callStep("slow", JSON.objectNode().put("ms", ms), connection, JSON.objectNode());
  }

  private ClaimedAttempt claim() {
    List<ClaimedAttempt> c =
        journal.claim(
            new ClaimRequest(new WorkerId("w"), Set.of(StepKind.AGENT), 1, Duration.ofSeconds(30)));
    assertThat(c).as("a claimable call").hasSize(1);
    return c.getFirst();
  }

  private StepExecution exec(ClaimedAttempt a) {
    EffectGate gate =
        new EffectGate() {
          @Override
          public EffectElection record(String path) {
            return journal.recordEffect(a.lease(), path);
          }

          @Override
          public void confirm(String path, Optional<JsonNode> output) {
            journal.confirmEffect(a.lease(), path, output);
          }
        };
    return new StepExecution(a, new CancellationToken(), gate);
  }

  /** An attempt's outcome, journaled as a worker would. */
  private StepOutcome attempt(ClaimedAttempt a) throws InterruptedException {
    StepOutcome out = executor.execute(exec(a));
    journal.complete(a.lease(), out);
    return out;
  }

  /**
   * Runs attempts from {@code first} while each suspends, waiting out each timer (the server's
   * clock is real): the first outcome that is not a suspension.
   */
  private StepOutcome untilNotSuspended(ClaimedAttempt first) throws InterruptedException {
    ClaimedAttempt a = first;
    for (int i = 0; i < 400; i++) {
      StepOutcome out = attempt(a);
      if (!(out instanceof StepOutcome.Suspended s)) {
        return out;
      }
      Thread.sleep(s.recheckAfter().toMillis());
      clock.advance(s.recheckAfter());
      a = claim();
    }
    throw new AssertionError("the task never ended");
  }

  /** The server's events {@code event} of the call with idempotency key {@code key}. */
  private List<JsonNode> events(String event, String key) throws IOException {
    return logged(event, "key", key);
  }

  /** The server's events {@code event} of task {@code taskId}. */
  private List<JsonNode> taskEvents(String event, String taskId) throws IOException {
    return logged(event, "taskId", taskId);
  }

  private List<JsonNode> logged(String event, String field, String value) throws IOException {
    return Files.readAllLines(events).stream()
        .map(TaskCallsTest::readJson)
        .filter(e -> e.path("event").asText().equals(event))
        .filter(e -> e.path(field).asText().equals(value))
        .toList();
  }

  private static JsonNode readJson(String line) {
    try {
      return Jackson.mapper().readTree(line);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private DurableTasks.StepTask task(RunRef run) {
    return DurableTasks.of(journal.entries(run), "call").orElseThrow();
  }

  private List<String> types(RunRef run) {
    return journal.entries(run).stream().map(r -> r.entry().type()).toList();
  }

  // ---- the rules

  @Test
  void aCallTheServerRunsAsATaskIsJournaledWithItsEffectThenPolledUntilItCompletes()
      throws Exception {
    ClaimedAttempt first = slow(400, modern);
    RunRef run = first.lease().runId();

    StepOutcome out = attempt(first);

    assertThat(out).isInstanceOf(StepOutcome.Suspended.class);
    assertThat(types(run))
        .as("the task right after the effect's record, nothing confirmed")
        .containsSubsequence("effect.recorded", "effect.task", "step.completed")
        .doesNotContain("effect.confirmed");
    String taskId = task(run).latest().taskId();
    assertThat(task(run).latest().status()).isEqualTo("working");
    clock.advance(((StepOutcome.Suspended) out).recheckAfter());

    StepOutcome done = untilNotSuspended(claim());

    assertThat(done).isInstanceOf(StepOutcome.Succeeded.class);
    JsonNode receipt = ((StepOutcome.Succeeded) done).output();
    assertThat(receipt.path("taskId").asText()).isEqualTo(taskId);
    assertThat(receipt.at("/output/content/0/text").asText()).isEqualTo("slow done after 400 ms");
    assertThat(receipt.path("idempotencyKey").asText()).isEqualTo(first.idempotencyKey());
    assertThat(events("tools/call", first.idempotencyKey())).hasSize(1);
    assertThat(events("task.created", first.idempotencyKey())).hasSize(1);
    assertThat(taskEvents("tasks/get", taskId)).isNotEmpty();
    assertThat(types(run))
        .containsSubsequence("effect.task", "effect.confirmed", "step.completed", "run.completed");
    assertThat(task(run).latest().status()).isEqualTo("completed");
  }

  @Test
  void aTaskIsJournaledAgainOnlyWhenItsStatusOrMessageChanged() throws Exception {
    ClaimedAttempt first = slow(300, modern);
    RunRef run = first.lease().runId();

    untilNotSuspended(first);

    List<JournalEntry.EffectTask> notes =
        journal.entries(run).stream()
            .map(JournalRecord::entry)
            .filter(JournalEntry.EffectTask.class::isInstance)
            .map(JournalEntry.EffectTask.class::cast)
            .toList();
    long polls =
        journal.entries(run).stream()
            .filter(r -> r.entry() instanceof JournalEntry.StepAttemptStarted)
            .count();
    assertThat(notes.size()).isLessThanOrEqualTo((int) polls);
    for (int i = 1; i < notes.size(); i++) {
      var before = notes.get(i - 1).task();
      var after = notes.get(i).task();
      assertThat(
              before.status().equals(after.status())
                  && before.statusMessage().equals(after.statusMessage()))
          .as("note %d repeats note %d", i, i - 1)
          .isFalse();
    }
  }

  @Test
  void anAttemptAfterACrashPollsTheJournaledTaskInsteadOfParkingOrCallingAgain() throws Exception {
    ClaimedAttempt first =
        callStep("slow", JSON.objectNode().put("ms", 300), modern, JSON.objectNode(), 120_000);
    RunRef run = first.lease().runId();
    // The first worker dies after the task was journaled: its attempt never completes.
    executor.execute(exec(first));
    clock.advance(Duration.ofSeconds(31));
    journal.expireLeases();
    clock.advance(Duration.ofSeconds(1));

    ClaimedAttempt second = claim();
    assertThat(journal.recordEffect(second.lease(), "/mcp/jobs/slow").takenOver()).isTrue();
    StepOutcome done = untilNotSuspended(second);

    assertThat(done)
        .as("a taken-over call that is not idempotent is polled, not parked")
        .isInstanceOf(StepOutcome.Succeeded.class);
    assertThat(events("tools/call", first.idempotencyKey())).hasSize(1);
    assertThat(events("task.created", first.idempotencyKey())).hasSize(1);
    assertThat(journal.run(run).orElseThrow().status().wire()).isEqualTo("succeeded");
  }

  /** The worker running {@code a} dies after its attempt ran: the attempt's lease expires. */
  private Disposition dies(ClaimedAttempt a) throws InterruptedException {
    executor.execute(exec(a));
    clock.advance(Duration.ofSeconds(31));
    List<ExpiredAttempt> expired = journal.expireLeases();
    assertThat(expired).extracting(ExpiredAttempt::lease).containsExactly(a.lease());
    clock.advance(Duration.ofSeconds(1));
    return expired.getFirst().disposition();
  }

  @Test
  void workersDyingMoreOftenThanTheCallsIterationsWhileItsTaskWorksLeaveItToFinishWithOneCall()
      throws Exception {
    ClaimedAttempt first =
        callStep("slow", JSON.objectNode().put("ms", 2_000), modern, JSON.objectNode(), 600_000);
    RunRef run = first.lease().runId();
    ClaimedAttempt a = first;
    for (int i = 1; i <= 4; i++) {
      assertThat(dies(a))
          .as("the death of attempt %d (3 iterations)", i)
          .isEqualTo(Disposition.RETRY);
      a = claim();
    }

    StepOutcome done = untilNotSuspended(a);

    assertThat(done).isInstanceOf(StepOutcome.Succeeded.class);
    assertThat(events("tools/call", first.idempotencyKey())).hasSize(1);
    assertThat(events("task.created", first.idempotencyKey())).hasSize(1);
    assertThat(journal.run(run).orElseThrow().status().wire()).isEqualTo("succeeded");
  }

  @Test
  void aWorkerDyingAfterItJournaledTheTasksEndLeavesTheNextAttemptToFinishWithoutCallingAgain()
      throws Exception {
    ClaimedAttempt first = slow(200, modern);
    RunRef run = first.lease().runId();
    StepOutcome waiting = attempt(first);
    Thread.sleep(400);
    clock.advance(((StepOutcome.Suspended) waiting).recheckAfter());
    ClaimedAttempt second = claim();

    assertThat(dies(second)).isEqualTo(Disposition.RETRY);
    assertThat(task(run).latest().status()).isEqualTo("completed");

    assertThat(attempt(claim())).isInstanceOf(StepOutcome.Succeeded.class);
    assertThat(events("tools/call", first.idempotencyKey())).hasSize(1);
    assertThat(journal.run(run).orElseThrow().status().wire()).isEqualTo("succeeded");
  }

  @Test
  void aWorkingTaskWaitsTheServersHintWithinTheBoundsAndBacksOffWithoutOne() throws Exception {
    ClaimedAttempt first = slow(60_000, modern);

    StepOutcome out = attempt(first);

    assertThat(((StepOutcome.Suspended) out).recheckAfter())
        .as("the server hints 50 ms; the bounds allow it")
        .isEqualTo(Duration.ofMillis(50));
    McpClientConfig limits =
        McpClientConfig.DEFAULTS.withTaskPolls(Duration.ofSeconds(1), Duration.ofSeconds(30));
    assertThat(limits.taskPoll(Optional.of(Duration.ofMillis(50)), 1))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(limits.taskPoll(Optional.of(Duration.ofMinutes(5)), 1))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(limits.taskPoll(Optional.of(Duration.ofSeconds(7)), 9))
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(
            List.of(1, 2, 3, 6, 40).stream()
                .map(n -> limits.taskPoll(Optional.empty(), n))
                .toList())
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(30),
            Duration.ofSeconds(30));
  }

  @Test
  void aTaskPastTheCallsOwnTimeoutIsCancelledOnTheServerAndTheAttemptEndsTimeout()
      throws Exception {
    ClaimedAttempt first = slow(60_000, modern);
    RunRef run = first.lease().runId();
    attempt(first);
    String taskId = task(run).latest().taskId();
    clock.advance(Duration.ofMillis(2_001)); // the step's timeout is 2 s from the task's creation

    StepOutcome out = attempt(claim());

    assertThat(out).as(String.valueOf(out)).isInstanceOf(StepOutcome.Failed.class);
    StepOutcome.Failed f = (StepOutcome.Failed) out;
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo(ErrorCode.TIMEOUT.wire());
    assertThat(f.retryable()).isFalse();
    assertThat(taskEvents("tasks/cancel", taskId)).hasSize(1);
    assertThat(types(run)).contains("effect.task.cancel");
    assertThat(task(run).cancelSentAt()).isPresent();
    assertThat(serverSays(taskId).path("cancelled").asBoolean()).isTrue();
    assertThat(journal.tasksToCancel(10)).as("nothing more owed").isEmpty();
  }

  @Test
  void aRunCanceledWhileItsTaskWorksGetsTasksCancelFromTheReconcilersSweepOnce() throws Exception {
    ClaimedAttempt first = slow(60_000, modern);
    RunRef run = first.lease().runId();
    attempt(first);
    String taskId = task(run).latest().taskId();
    journal.cancelRun(run, "operator");
    TaskCancels sweeps = new TaskCancels(journal, sessions, new WorkerId("w"));

    assertThat(sweeps.sweep()).isEqualTo(1);
    assertThat(sweeps.sweep()).as("once per task").isZero();

    assertThat(taskEvents("tasks/cancel", taskId)).hasSize(1);
    assertThat(serverSays(taskId).path("cancelled").asBoolean()).isTrue();
    JournalEntry.EffectTaskCancel note =
        journal.entries(run).stream()
            .map(JournalRecord::entry)
            .filter(JournalEntry.EffectTaskCancel.class::isInstance)
            .map(JournalEntry.EffectTaskCancel.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(note.reason()).isEqualTo("its run ended canceled");
    assertThat(note.by()).isEqualTo("worker:w");
  }

  @Test
  void aTaskCancelledOnTheServerFailsTheStepWithADiagnosticAndIsNotCalledAgain() throws Exception {
    ClaimedAttempt first = slow(60_000, modern);
    RunRef run = first.lease().runId();
    attempt(first);
    String taskId = task(run).latest().taskId();
    sessions.session(modern).cancelTask(taskId).get();
    clock.advance(Duration.ofMillis(100));

    StepOutcome out = attempt(claim());

    StepOutcome.Failed f = (StepOutcome.Failed) out;
    assertThat(f.retryable()).isFalse();
    assertThat(f.trajectoryTail().path("diagnostic").asText()).isEqualTo("mcp_tool_error");
    assertThat(f.trajectoryTail().path("message").asText())
        .contains("task " + taskId + " was cancelled on the server");
    assertThat(events("tools/call", first.idempotencyKey())).hasSize(1);
  }

  @Test
  void aTaskThatAsksForInputParksAndTheAnswerIsSentWithTasksUpdate() throws Exception {
    ClaimedAttempt first =
        callStep("ask_task", JSON.objectNode().put("ms", 0), modern, JSON.objectNode());
    RunRef run = first.lease().runId();

    StepOutcome out = untilNotSuspended(first);

    StepOutcome.Parked parked = (StepOutcome.Parked) out;
    assertThat(parked.code()).isEqualTo(ErrorCode.INPUT_REQUIRED);
    assertThat(
            parked
                .trajectoryTail()
                .at("/inputRequests/approval/params/requestedSchema/properties/approved/type")
                .asText())
        .isEqualTo("boolean");
    String taskId = task(run).latest().taskId();
    assertThat(task(run).latest().status()).isEqualTo("input_required");
    journal.answerInput(
        run, "call", new InputAnswer.Accept(JSON.objectNode().put("approved", true)), "ops");

    StepOutcome done = untilNotSuspended(claim());

    assertThat(((StepOutcome.Succeeded) done).output().at("/output/content/0/text").asText())
        .isEqualTo("approved=true");
    assertThat(taskEvents("tasks/update", taskId)).hasSize(1);
    assertThat(events("tools/call", first.idempotencyKey())).hasSize(1);
  }

  @Test
  void aCallThatForbidsTasksIsMadePlainEvenWhenTheServerCouldRunATask() throws Exception {
    ClaimedAttempt a =
        callStep(
            "slow",
            JSON.objectNode().put("ms", 10),
            modern,
            JSON.objectNode().put("tasks", "forbidden"));

    StepOutcome out = attempt(a);

    assertThat(out).isInstanceOf(StepOutcome.Succeeded.class);
    assertThat(((StepOutcome.Succeeded) out).output().has("taskId")).isFalse();
    assertThat(types(a.lease().runId())).doesNotContain("effect.task");
    assertThat(events("tools/call", a.idempotencyKey()).getFirst().path("asTask").asBoolean())
        .isFalse();
  }

  @Test
  void anExperimentalTaskOfA2025ServerIsPolledToCompletionAcrossAttempts() throws Exception {
    ClaimedAttempt first = slow(300, legacy);
    RunRef run = first.lease().runId();

    StepOutcome done = untilNotSuspended(first);

    assertThat(done).isInstanceOf(StepOutcome.Succeeded.class);
    assertThat(task(run).latest().protocolVersion()).isEqualTo("2025-11-25");
    assertThat(((StepOutcome.Succeeded) done).output().at("/output/content/0/text").asText())
        .isEqualTo("slow done after 300 ms");
    assertThat(events("tools/call", first.idempotencyKey())).hasSize(1);
  }

  /** The task as the server keeps it in its state file (the latest line for the id). */
  private static JsonNode serverSays(String taskId) throws IOException {
    JsonNode last = JSON.nullNode();
    for (String line : Files.readAllLines(state)) {
      JsonNode t = readJson(line);
      if (t.path("taskId").asText().equals(taskId)) {
        last = t;
      }
    }
    return last;
  }
}
