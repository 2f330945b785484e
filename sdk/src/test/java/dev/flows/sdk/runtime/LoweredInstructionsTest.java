package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.instruction.FlowBodyInstruction.Origin;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.sdk.FlowHeader;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The instructions a flow lowers to, and how a body reads its own. The specs a flow lowers to hash
 * exactly as they did when the sdk built their instructions by hand: a replay compares a child's
 * journaled spec hash with the one it lowers now, so a changed byte would refuse every existing run
 * as {@code nondeterministic_replay}. The hashes are pinned too, so a change to the canonical form
 * shows here as well.
 */
class LoweredInstructionsTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final SdkConfig CONFIG = SdkConfig.DEFAULTS;

  private static ObjectNode connection() {
    ObjectNode c = F.objectNode().put("transport", "http").put("url", "http://127.0.0.1:1/mcp");
    c.putObject("headers").put("X-Team", "ops");
    return c;
  }

  /** The child spec of an MCP call as the sdk lowered it before the instruction was a record. */
  private static RunSpec handLoweredCall(
      String flow, String server, String tool, JsonNode args, boolean mayReperform) {
    ObjectNode instruction = F.objectNode();
    instruction.put("type", "mcp").put("server", server).put("tool", tool);
    instruction.set("input", args);
    instruction.set("connection", connection());
    instruction.put("mayReperform", mayReperform);
    StepSpec call =
        new StepSpec(
            "call",
            List.of(),
            args,
            CONFIG.mcpMaxIterations(),
            BackoffPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(
                instruction, RecoveryMode.INSPECT, List.of("/mcp/" + server + "/" + tool)));
    return new RunSpec(RunSpec.VERSION, flow + ":mcp:" + server + "/" + tool, List.of(call));
  }

  @Test
  void anMcpCallsChildSpecHashesAsItDidWhenItsInstructionWasBuiltByHand() {
    ObjectNode args = F.objectNode().put("customer", "c-1").put("amount", 1250);

    RunSpec lowered =
        Lowering.mcpCall("billing", "payments", "charge", args, connection(), false, CONFIG);

    RunSpec before = handLoweredCall("billing", "payments", "charge", args, false);
    assertThat(RunSpecJson.canonicalText(RunSpecJson.write(lowered)))
        .isEqualTo(RunSpecJson.canonicalText(RunSpecJson.write(before)));
    assertThat(RunSpecJson.hash(lowered))
        .isEqualTo(RunSpecJson.hash(before))
        .isEqualTo("09d803a94e6b1a57f126528e41274971210b3b7d87f0939bdbdbb462512dbb64");
  }

  @Test
  void anMcpCallWithTheDefaultPolicyHashesAsACallWithoutOne() {
    ObjectNode args = F.objectNode().put("customer", "c-1").put("amount", 1250);

    RunSpec lowered =
        Lowering.mcpCall(
            "billing",
            "payments",
            "charge",
            args,
            connection(),
            false,
            dev.flows.sdk.CallPolicy.DEFAULT,
            CONFIG);

    assertThat(RunSpecJson.hash(lowered))
        .isEqualTo("09d803a94e6b1a57f126528e41274971210b3b7d87f0939bdbdbb462512dbb64");
  }

  @Test
  void anMcpCallsPolicyLowersToItsStepAndInstructionAndReadsBack() {
    dev.flows.sdk.CallPolicy policy =
        dev.flows.sdk.CallPolicy.DEFAULT
            .withTimeout(Duration.ofMillis(750))
            .withRetry(
                dev.flows.sdk.RetryPolicy.attempts(4)
                    .backoff(Duration.ofMillis(200), 3.0, Duration.ofSeconds(2))
                    .doNotRetry("mcp_disconnected"))
            .withOnUnknownOutcome(dev.flows.sdk.UnknownOutcome.PARK);

    RunSpec lowered =
        Lowering.mcpCall(
            "billing", "payments", "charge", F.objectNode(), connection(), true, policy, CONFIG);

    StepSpec call = lowered.steps().getFirst();
    assertThat(call.maxIterations()).isEqualTo(4);
    assertThat(call.retry()).isEqualTo(new BackoffPolicy(200, 2_000, 3.0, 20));
    assertThat(call.timeoutMs()).hasValue(750);
    JsonNode instruction = ((StepBody.Agent) call.body()).instruction();
    assertThat(instruction.path("onUnknownOutcome").asText()).isEqualTo("park");
    assertThat(instruction.path("doNotRetry").toString()).isEqualTo("[\"mcp_disconnected\"]");
    var read = dev.flows.kernel.instruction.McpCallInstruction.fromJson(instruction);
    assertThat(read.mayReperform()).isTrue();
    assertThat(read.reperforms()).as("the policy overrides the annotations").isFalse();
    assertThat(read.retries("mcp_disconnected")).isFalse();
    assertThat(read.retries("timeout")).as("an explicit policy retries timeouts").isTrue();
    assertThat(RunSpecJson.hash(lowered))
        .isNotEqualTo(
            RunSpecJson.hash(
                Lowering.mcpCall(
                    "billing", "payments", "charge", F.objectNode(), connection(), true, CONFIG)));
  }

  /** The instruction of a charge call lowered with {@code policy}. */
  private static dev.flows.kernel.instruction.McpCallInstruction charge(
      dev.flows.sdk.CallPolicy policy) {
    RunSpec lowered =
        Lowering.mcpCall(
            "billing", "payments", "charge", F.objectNode(), connection(), false, policy, CONFIG);
    return dev.flows.kernel.instruction.McpCallInstruction.of(
        (StepBody.Agent) lowered.steps().getFirst().body());
  }

  @Test
  void anMcpCallsTaskUseLowersToItsInstructionAndDecidesItsTaskMode() {
    var forbidden =
        charge(dev.flows.sdk.CallPolicy.DEFAULT.withTasks(dev.flows.sdk.TaskUse.FORBIDDEN));

    assertThat(forbidden.toJson().path("tasks").asText()).isEqualTo("forbidden");
    assertThat(forbidden.taskMode()).isEqualTo(dev.flows.kernel.mcp.CallOptions.TaskMode.FORBIDDEN);
    var plain = charge(dev.flows.sdk.CallPolicy.DEFAULT);
    assertThat(plain.tasks()).isEmpty();
    assertThat(plain.toJson().has("tasks")).isFalse();
    assertThat(plain.taskMode()).isEqualTo(dev.flows.kernel.mcp.CallOptions.TaskMode.AUTOMATIC);
  }

  private static dev.flows.kernel.mcp.McpServerConfig.Stdio stdio(String name) {
    return new dev.flows.kernel.mcp.McpServerConfig.Stdio(
        name, "x", List.of(), List.of(), java.util.Map.of(), Optional.empty());
  }

  @Test
  void aServersTaskUseIsFrozenInTheInventoryAndReadBack() {
    Inventory inv =
        Inventory.of(
            List.of(
                new Inventory.Server(
                    stdio("jobs"),
                    false,
                    List.of(),
                    "",
                    Optional.of(dev.flows.sdk.TaskUse.REQUIRED)),
                new Inventory.Server(stdio("web"), false, List.of())));
    assertThat(inv.tasks("jobs")).contains(dev.flows.sdk.TaskUse.REQUIRED);
    assertThat(inv.tasks("web")).isEmpty();
    assertThat(inv.json().path("web").has("tasks")).isFalse();
  }

  @Test
  void aCommandsPolicyLowersToItsStepAndADoNotRetryListIsRefused() {
    dev.flows.sdk.CallPolicy policy =
        dev.flows.sdk.CallPolicy.DEFAULT
            .withTimeout(Duration.ofSeconds(5))
            .withRetry(dev.flows.sdk.RetryPolicy.attempts(7));

    StepSpec step =
        Lowering.command("ops", List.of("make"), false, Optional.empty(), policy, CONFIG)
            .steps()
            .getFirst();

    assertThat(step.maxIterations()).isEqualTo(7);
    assertThat(step.timeoutMs()).hasValue(5_000);
    assertThat(
            Lowering.command("ops", List.of("make"), true, CONFIG)
                .steps()
                .getFirst()
                .maxIterations())
        .as("f.sh keeps its default attempts")
        .isEqualTo(SdkConfig.DEFAULT_COMMAND_MAX_ITERATIONS);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                Lowering.command(
                    "ops",
                    List.of("make"),
                    false,
                    Optional.empty(),
                    policy.withRetry(dev.flows.sdk.RetryPolicy.attempts(2).doNotRetry("timeout")),
                    CONFIG))
        .isInstanceOf(dev.flows.kernel.FlowsException.class)
        .hasMessageContaining("doNotRetry");
  }

  @Test
  void aFlowBodysRootSpecIsWrittenAsItWasWhenItsInstructionWasBuiltByHand() {
    FlowHeader header = new FlowHeader("triage", "2", List.of());
    Origin source =
        new Origin.SourceFlow(
            "Triage",
            "class Triage {}",
            "9f86d0",
            Optional.of("/srv/flows"),
            Optional.of("/srv/flows/triage.flow.java"));
    ObjectNode expected = F.objectNode().put("type", "flow").put("flow", "triage");
    expected.put("version", "2");
    expected
        .putObject("origin")
        .put("kind", "source")
        .put("className", "Triage")
        .put("sourceHash", "9f86d0")
        .put("source", "class Triage {}")
        .put("dir", "/srv/flows")
        .put("file", "/srv/flows/triage.flow.java");
    expected.put("route", "source:9f86d0");
    expected.putObject("mcp");

    RunSpec root = Lowering.root(header, source, F.objectNode(), Inventory.empty(), CONFIG);

    JsonNode instruction = ((StepBody.Agent) root.steps().getFirst().body()).instruction();
    assertThat(instruction.toString()).isEqualTo(expected.toString());
    assertThat(RunSpecJson.hash(root))
        .isEqualTo("072eda8d7a009d3098d6affe358be20a4fa9f24c4909d8a42a6927f85f9caef5");
    assertThat(Lowering.commandDir(instruction)).contains("/srv/flows");
  }

  @Test
  void aFlowBodyWhoseInstructionLacksItsInventoryFailsForGoodNamingTheField() throws Exception {
    InMemoryJournal journal =
        new InMemoryJournal(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")));
    FlowHeader header = new FlowHeader("triage", "2", List.of());
    RunSpec root =
        Lowering.root(
            header,
            new Origin.ClassFlow("com.acme.Triage"),
            F.objectNode(),
            Inventory.empty(),
            CONFIG);
    StepSpec body = root.steps().getFirst();
    StepBody.Agent agent = (StepBody.Agent) body.body();
    ObjectNode broken = agent.instruction().deepCopy();
    broken.remove("mcp");
    StepSpec brokenBody =
        new StepSpec(
            body.id(),
            body.dependsOn(),
            body.input(),
            body.maxIterations(),
            body.retry(),
            body.leaseMs(),
            body.timeoutMs(),
            new StepBody.Agent(broken, agent.recoveryMode(), agent.externalSurfaces()));
    journal.admit(
        StartRun.of("broken", new RunSpec(RunSpec.VERSION, "triage", List.of(brokenBody))),
        Admit.queued());
    ClaimedAttempt a =
        journal
            .claim(
                new ClaimRequest(
                    new WorkerId("w"), Set.of(StepKind.AGENT), 1, Duration.ofSeconds(30)))
            .getFirst();

    StepOutcome out = new FlowBodyRunner(journal, new FlowResolver(), CONFIG).run(a);

    StepOutcome.Failed failed = (StepOutcome.Failed) out;
    assertThat(failed.retryable()).isFalse();
    assertThat(failed.trajectoryTail().path("diagnostic").asText()).isEqualTo("invalid_input");
    assertThat(failed.trajectoryTail().path("place").asText()).isEqualTo("instruction.mcp");
  }
}
