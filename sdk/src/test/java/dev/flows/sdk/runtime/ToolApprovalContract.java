package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.ToolCall;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.runtime.DurableFlowTest.TestFlow;
import dev.flows.worker.llm.ModelRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Tool approval ({@code f.agent(…).approve(…)}, {@code f.mcp(…).tool(…).needsApproval()}): a call
 * that needs it parks before it is sent, and the answer journaled on its step decides. The same on
 * every journal: each subclass gives one.
 */
abstract class ToolApprovalContract {
  static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  final FlowResolver resolver = new FlowResolver();
  final ModelRegistry registry = new ModelRegistry(name -> Optional.of("sk-test"));

  abstract Journal journal();

  private RunRef start(TestFlow.Body body) {
    return DurableFlowTest.start(
        journal(),
        resolver,
        new TestFlow(AgentTest.HEADER, body),
        JSON.objectNode(),
        SdkConfig.DEFAULTS);
  }

  private static ToolCall call(String id, String name, String args) {
    try {
      return new ToolCall(id, name, DurableCtx.MAPPER.readTree(args));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode json(String text) {
    try {
      return DurableCtx.MAPPER.readTree(text);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private MiniWorker worker() {
    return AgentTest.worker(journal(), resolver, registry);
  }

  /**
   * Ticks {@code w} until the run and all its calls have come to rest: the run ended or parked, and
   * no call is still to be sent (60 s at most). A body parks as soon as the call it awaits first
   * parks; its other calls are sent all the same, by ticks that may come after the park.
   */
  private RunSnapshot drive(MiniWorker w, RunRef root) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal().run(root).orElseThrow();
      if ((s.status().terminal() || s.status() == RunStatus.PARKED) && callsAtRest(root)) {
        return s;
      }
      if (w.tick() == 0) {
        journal().awaitWork(Duration.ofMillis(20));
      }
    }
    throw new AssertionError("run did not finish: " + journal().run(root));
  }

  private boolean callsAtRest(RunRef root) {
    return journal().children(root).stream()
        .map(c -> journal().run(c).orElseThrow().status())
        .allMatch(st -> st.terminal() || st == RunStatus.PARKED);
  }

  /** The child run of {@code root} parked for approval. */
  private RunRef parkedCall(RunRef root) {
    return journal().children(root).stream()
        .filter(c -> journal().run(c).orElseThrow().status() == RunStatus.PARKED)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no parked call under " + root));
  }

  /** The park tail of a call waiting for approval: what an operator is shown. */
  private JsonNode park(RunRef call) {
    return dev.flows.kernel.journal.DurableInput.parked(journal().entries(call), "call")
        .orElseThrow();
  }

  private static boolean anEffectRecorded(List<JournalRecord> entries) {
    return entries.stream().anyMatch(r -> r.entry() instanceof JournalEntry.EffectRecorded);
  }

  private ScriptedModelServer oneCharge(String finalText) throws Exception {
    ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(call("c1", "pay__charge", "{\"amount\":5}")), Turn.text(finalText)));
    AgentTest.declare(registry, server);
    return server;
  }

  private RunRef chargingAgent() {
    return start(
        (f, in) ->
            JSON.textNode(
                f.agent("smart").tools("pay").approve("pay", "charge").run("charge 5 to ada")));
  }

  @Test
  void aCallThatNeedsApprovalParksUnsentWithItsArgumentsAndIsSentOnceWithThemWhenApproved()
      throws Exception {
    try (ScriptedModelServer server = oneCharge("charged")) {
      RunRef root = chargingAgent();
      MiniWorker w = worker();

      assertThat(drive(w, root).status()).isEqualTo(RunStatus.PARKED);
      RunRef call = parkedCall(root);
      JsonNode asked = park(call).path("inputRequests").path("approval");
      assertThat(asked.path("method").asText()).isEqualTo("flows/approve");
      assertThat(asked.path("params").path("tool").asText()).isEqualTo("charge");
      assertThat(asked.path("params").path("arguments")).isEqualTo(json("{\"amount\":5}"));
      assertThat(w.calls).isEmpty();
      assertThat(anEffectRecorded(journal().entries(call))).isFalse();

      journal()
          .answerInput(call, "call", new InputAnswer.Accept(json("{\"approve\":true}")), "ada");
      RunSnapshot done = drive(w, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().asText()).isEqualTo("charged");
      assertThat(w.sent).containsExactly(Map.entry("pay/charge", json("{\"amount\":5}")));
      JsonNode receipt =
          journal().run(call).orElseThrow().steps().getFirst().output().orElseThrow();
      assertThat(receipt.path("approval").path("decision").asText()).isEqualTo("approved");
      assertThat(receipt.path("approval").path("by").asText()).isEqualTo("ada");
      assertThat(journal().entries(call))
          .anySatisfy(
              r ->
                  assertThat(r.entry())
                      .isInstanceOfSatisfying(
                          JournalEntry.StepAnswered.class,
                          a -> assertThat(a.by()).isEqualTo("ada")));
      // The model was asked twice: the body's replays after the park did not ask again.
      assertThat(server.requests()).hasSize(2);
    }
  }

  @Test
  void editedArgumentsAreSentInsteadOfTheProposedOnesAndTheReceiptKeepsBoth() throws Exception {
    try (ScriptedModelServer server = oneCharge("charged 3")) {
      RunRef root = chargingAgent();
      MiniWorker w = worker();
      drive(w, root);
      RunRef call = parkedCall(root);

      journal()
          .answerInput(
              call, "call", new InputAnswer.Accept(json("{\"args\":{\"amount\":3}}")), "ops");
      RunSnapshot done = drive(w, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(w.sent).containsExactly(Map.entry("pay/charge", json("{\"amount\":3}")));
      JsonNode receipt =
          journal().run(call).orElseThrow().steps().getFirst().output().orElseThrow();
      assertThat(receipt.path("input")).isEqualTo(json("{\"amount\":3}"));
      assertThat(receipt.path("approval").path("decision").asText()).isEqualTo("edited");
      assertThat(receipt.path("approval").path("proposed")).isEqualTo(json("{\"amount\":5}"));
    }
  }

  @Test
  void aDeniedCallIsNeverSentAndTheModelReadsTheDenialAsTheToolsErrorAndAnswers() throws Exception {
    try (ScriptedModelServer server = oneCharge("not charged: an operator refused")) {
      RunRef root = chargingAgent();
      MiniWorker w = worker();
      drive(w, root);
      RunRef call = parkedCall(root);

      journal()
          .answerInput(
              call, "call", new InputAnswer.Accept(json("{\"deny\":\"over the limit\"}")), "ops");
      RunSnapshot done = drive(w, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().asText())
          .isEqualTo("not charged: an operator refused");
      assertThat(w.calls).isEmpty();
      assertThat(anEffectRecorded(journal().entries(call))).isFalse();
      JsonNode toolResult = server.requests().get(1).path("messages").get(2);
      assertThat(toolResult.path("tool_call_id").asText()).isEqualTo("c1");
      assertThat(toolResult.path("content").asText())
          .startsWith("error (tool_call_denied)")
          .contains("ops")
          .contains("over the limit");
    }
  }

  @Test
  void aWorkerDyingWhileACallWaitsForApprovalLeavesItWaitingAndUnsent() throws Exception {
    try (ScriptedModelServer server = oneCharge("charged")) {
      RunRef root = chargingAgent();
      MiniWorker first = worker();
      drive(first, root);
      RunRef call = parkedCall(root);
      first.killBodies();

      // Another worker takes over: it finds nothing to do and sends nothing.
      MiniWorker second = worker();
      for (int i = 0; i < 5; i++) {
        journal().expireLeases();
        second.tick();
        Thread.sleep(20);
      }
      assertThat(journal().run(call).orElseThrow().status()).isEqualTo(RunStatus.PARKED);
      assertThat(journal().run(root).orElseThrow().status()).isEqualTo(RunStatus.PARKED);
      assertThat(first.calls).isEmpty();
      assertThat(second.calls).isEmpty();
      assertThat(anEffectRecorded(journal().entries(call))).isFalse();
      assertThat(
              park(call)
                  .path("inputRequests")
                  .path("approval")
                  .path("params")
                  .path("tool")
                  .asText())
          .isEqualTo("charge");

      journal()
          .answerInput(call, "call", new InputAnswer.Accept(json("{\"approve\":true}")), "ops");
      RunSnapshot done = drive(second, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(second.sent).containsExactly(Map.entry("pay/charge", json("{\"amount\":5}")));
      assertThat(second.performedByKey.values()).hasSize(1).allMatch(n -> n.get() == 1);
      assertThat(server.requests()).hasSize(2);
    }
  }

  @Test
  void anAnswerOfAnotherShapeIsRefusedApprovalAnswerInvalidAndWritesNothing() throws Exception {
    try (ScriptedModelServer server = oneCharge("charged")) {
      RunRef root = chargingAgent();
      drive(worker(), root);
      RunRef call = parkedCall(root);
      int before = journal().entries(call).size();

      for (String bad :
          List.of(
              "{\"approve\":false}",
              "{\"deny\":\"\"}",
              "{\"args\":5}",
              "{\"approve\":true,\"deny\":\"both\"}",
              "{\"confirmAmountCents\":5}",
              "\"yes\"")) {
        assertThatThrownBy(
                () -> journal().answerInput(call, "call", new InputAnswer.Accept(json(bad)), "ops"))
            .as(bad)
            .isInstanceOfSatisfying(
                FlowsException.class,
                e -> {
                  assertThat(e.code()).isEqualTo(ErrorCode.APPROVAL_ANSWER_INVALID);
                  assertThat(e.getMessage()).doesNotContain("\n").contains("{\"approve\":true}");
                });
      }
      assertThat(journal().entries(call)).hasSize(before);
      assertThat(journal().run(call).orElseThrow().status()).isEqualTo(RunStatus.PARKED);
    }
  }

  @Test
  void aRuleOnTheArgumentsHoldsOnlyTheCallsItAcceptsAndTheOthersAreSentAtOnce() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(
                    call("c1", "pay__charge", "{\"amount\":5}"),
                    call("c2", "pay__charge", "{\"amount\":500}"),
                    call("c3", "tickets__classify", "{\"text\":\"refund\"}")),
                Turn.text("done")))) {
      AgentTest.declare(registry, server);
      RunRef root =
          start(
              (f, in) ->
                  JSON.textNode(
                      f.agent("smart")
                          .tools("pay", "tickets")
                          .approve(c -> c.arguments().path("amount").asInt() > 100)
                          .run("charge")));
      MiniWorker w = worker();

      assertThat(drive(w, root).status()).isEqualTo(RunStatus.PARKED);
      assertThat(w.calls).containsExactlyInAnyOrder("pay/charge", "tickets/classify");
      RunRef call = parkedCall(root);
      assertThat(park(call).path("inputRequests").path("approval").path("params").path("arguments"))
          .isEqualTo(json("{\"amount\":500}"));

      journal().answerInput(call, "call", new InputAnswer.Decline(), "ops");
      RunSnapshot done = drive(w, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(w.calls).containsExactlyInAnyOrder("pay/charge", "tickets/classify");
      assertThat(server.requests().get(1).path("messages").get(3).path("content").asText())
          .startsWith("error (tool_call_denied)")
          .contains("declined");
    }
  }

  @Test
  void aPlainMcpCallThatNeedsApprovalWaitsForItAndADenialFailsItToolCallDenied() throws Exception {
    RunRef root =
        start(
            (f, in) -> {
              try {
                f.mcp("pay").tool("charge").needsApproval().call(Map.of("amount", 9));
                return JSON.textNode("charged");
              } catch (FlowsError e) {
                return JSON.textNode(e.code());
              }
            });
    MiniWorker w = worker();
    assertThat(drive(w, root).status()).isEqualTo(RunStatus.PARKED);
    RunRef call = parkedCall(root);
    assertThat(park(call).path("inputRequests").path("approval").path("params").path("arguments"))
        .isEqualTo(json("{\"amount\":9}"));

    journal().answerInput(call, "call", new InputAnswer.Accept(json("{\"deny\":\"no\"}")), "ops");
    RunSnapshot done = drive(w, root);

    assertThat(done.steps().getFirst().output().orElseThrow().asText())
        .isEqualTo(ErrorCode.TOOL_CALL_DENIED.wire());
    assertThat(w.calls).isEmpty();
  }
}
