package dev.flows.worker.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.mcp.McpClientConfig;
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
 * The worker's executor and a call whose instruction says {@code approval}, against the real task
 * test server (which logs every {@code tools/call} it receives): nothing reaches the server before
 * the answer, and the approval's answer is flows' own, never sent to the server.
 */
class McpToolApprovalTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static McpSessions sessions;
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final McpToolExecutor executor = new McpToolExecutor(sessions, journal);

  @BeforeAll
  static void sessions() {
    sessions = new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment());
  }

  @AfterAll
  static void close() {
    sessions.close();
  }

  private ClaimedAttempt approvalStep(String tool, JsonNode args, JsonNode connection) {
    String server = connection.path("name").asText();
    ObjectNode in = JSON.objectNode().put("type", "mcp").put("server", server).put("tool", tool);
    in.set("input", args);
    in.set("connection", connection);
    in.put("mayReperform", false).put("approval", true);
    StepSpec step =
        new StepSpec(
            "call",
            List.of(),
            args,
            3,
            new BackoffPolicy(1, 1, 1.0, 0),
            OptionalLong.of(5_000),
            OptionalLong.empty(),
            new StepBody.Agent(in, RecoveryMode.INSPECT, List.of("/mcp/" + server + "/" + tool)));
    journal.admit(
        StartRun.of("k" + System.nanoTime(), new RunSpec(RunSpec.VERSION, "t", List.of(step))),
        Admit.queued());
    return claim();
  }

  private ClaimedAttempt claim() {
    return journal
        .claim(
            new ClaimRequest(new WorkerId("w"), Set.of(StepKind.AGENT), 1, Duration.ofSeconds(30)))
        .getFirst();
  }

  private StepExecution exec(ClaimedAttempt a) {
    EffectGate gate =
        new EffectGate() {
          @Override
          public dev.flows.kernel.journal.EffectElection record(String path) {
            return journal.recordEffect(a.lease(), path);
          }

          @Override
          public void confirm(String path, Optional<JsonNode> output) {
            journal.confirmEffect(a.lease(), path, output);
          }
        };
    return new StepExecution(a, new CancellationToken(), gate);
  }

  private static List<JsonNode> calls(Path events) throws Exception {
    if (!Files.exists(events)) {
      return List.of();
    }
    List<JsonNode> out = new java.util.ArrayList<>();
    for (String line : Files.readAllLines(events)) {
      JsonNode e = dev.flows.kernel.json.Jackson.mapper().readTree(line);
      if (e.path("event").asText().equals("tools/call")) {
        out.add(e);
      }
    }
    return out;
  }

  private static JsonNode server(Path dir) {
    return McpServerConfigJson.write(
        Jvm.taskStdioServer(
            "asking", "--state=" + dir.resolve("tasks.json"), "--events=" + dir.resolve("ev")));
  }

  @Test
  void anApprovedCallIsSentOnlyAfterTheAnswerAndTheServersOwnAskIsAnsweredApart() throws Exception {
    Path dir = Files.createTempDirectory("approve");
    ClaimedAttempt first = approvalStep("ask_form", JSON.objectNode(), server(dir));

    StepOutcome out = executor.execute(exec(first));

    StepOutcome.Parked parked = (StepOutcome.Parked) out;
    assertThat(parked.code()).isEqualTo(ErrorCode.INPUT_REQUIRED);
    assertThat(parked.trajectoryTail().at("/inputRequests/approval/method").asText())
        .isEqualTo("flows/approve");
    assertThat(calls(dir.resolve("ev"))).isEmpty();
    journal.complete(first.lease(), out);
    RunRef run = first.lease().runId();
    assertThat(journal.entries(run))
        .noneMatch(r -> r.entry() instanceof JournalEntry.EffectRecorded);

    journal.answerInput(
        run, "call", new InputAnswer.Accept(JSON.objectNode().put("approve", true)), "ada");
    ClaimedAttempt second = claim();
    StepOutcome asked = executor.execute(exec(second));

    // Sent now; the server asks its own question, with no trace of the approval in the call.
    assertThat(asked).isInstanceOf(StepOutcome.Parked.class);
    assertThat(((StepOutcome.Parked) asked).trajectoryTail().has("inputRequests")).isTrue();
    assertThat(calls(dir.resolve("ev"))).hasSize(1);
    assertThat(calls(dir.resolve("ev")).getFirst().has("inputResponses")).isFalse();
    journal.complete(second.lease(), asked);
    journal.answerInput(
        run, "call", new InputAnswer.Accept(JSON.objectNode().put("name", "Ada")), "ops");

    ClaimedAttempt third = claim();
    StepOutcome.Succeeded done = (StepOutcome.Succeeded) executor.execute(exec(third));

    assertThat(done.output().at("/output/content/0/text").asText()).isEqualTo("hello Ada");
    assertThat(done.output().at("/approval/decision").asText()).isEqualTo("approved");
    assertThat(done.output().at("/approval/by").asText()).isEqualTo("ada");
    List<JsonNode> calls = calls(dir.resolve("ev"));
    assertThat(calls).hasSize(2);
    assertThat(calls.get(1).path("inputResponses").has("approval")).isFalse();
  }

  @Test
  void anEditedCallIsSentWithTheEditedArgumentsAndADeniedOneIsNeverSent() throws Exception {
    Path dir = Files.createTempDirectory("approve");
    JsonNode connection = server(dir);
    ClaimedAttempt edit =
        approvalStep("echo", JSON.objectNode().put("text", "proposed"), connection);
    journal.complete(edit.lease(), executor.execute(exec(edit)));
    ObjectNode edited = JSON.objectNode();
    edited.putObject("args").put("text", "edited");
    journal.answerInput(edit.lease().runId(), "call", new InputAnswer.Accept(edited), "ops");
    StepOutcome.Succeeded echoed = (StepOutcome.Succeeded) executor.execute(exec(claim()));

    assertThat(echoed.output().at("/output/content/0/text").asText()).isEqualTo("edited");
    assertThat(echoed.output().at("/input/text").asText()).isEqualTo("edited");
    assertThat(echoed.output().at("/approval/proposed/text").asText()).isEqualTo("proposed");

    ClaimedAttempt deny = approvalStep("echo", JSON.objectNode().put("text", "no"), connection);
    journal.complete(deny.lease(), executor.execute(exec(deny)));
    journal.answerInput(
        deny.lease().runId(),
        "call",
        new InputAnswer.Accept(JSON.objectNode().put("deny", "not today")),
        "ops");
    StepOutcome.Failed denied = (StepOutcome.Failed) executor.execute(exec(claim()));

    assertThat(denied.retryable()).isFalse();
    assertThat(denied.trajectoryTail().path("diagnostic").asText()).isEqualTo("tool_call_denied");
    assertThat(denied.trajectoryTail().path("message").asText()).contains("ops", "not today");
    assertThat(calls(dir.resolve("ev"))).hasSize(1);
  }
}
