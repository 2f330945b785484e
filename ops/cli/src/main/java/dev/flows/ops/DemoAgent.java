package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.journal.ToolApproval;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelFixture;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.PreflightException;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code flows demo --agent}: the example agent flow (a model triaging a ticket with the tickets
 * and payments tools) on the scripted model server of the checkout, offline. The demo is the
 * operator: it approves the refund the model proposes (journaled {@code by} {@value #ACTOR}) after
 * printing it, and confirms the amount when the payments server asks; then it prints the turns, the
 * tool calls and the final answer.
 */
final class DemoAgent {
  static final String FLOW = "flows-examples/flows/agent.flow.java";
  static final String SCRIPT = "flows-examples/models/agent.json";
  static final String MODEL = "support";

  /** Who answers, as journaled in {@code step.answered}. */
  static final String ACTOR = "demo";

  /** Answers at most this many parks: the example asks twice (approval, confirmation). */
  private static final int MAX_ANSWERS = 8;

  private final Session s;
  private final FlowsEngine engine;
  private final Path root;

  DemoAgent(Session s, FlowsEngine engine, Path root) {
    this.s = s;
    this.engine = engine;
    this.root = root;
  }

  /** {@code servers} with model {@value #MODEL} served at {@code baseUrl}. */
  static FlowsConfig withModelAt(FlowsConfig servers, URI baseUrl) {
    Map<String, ModelConfig> models = new LinkedHashMap<>(servers.models());
    ModelConfig m =
        servers
            .model(MODEL)
            .orElseThrow(
                () ->
                    new FlowsException(
                        ErrorCode.CONFIG_INVALID,
                        "the examples' flows.json declares no model '" + MODEL + "'",
                        servers.origin(),
                        "restore flows-examples/flows/flows.json from the checkout"));
    models.put(
        MODEL,
        new ModelConfig(
            m.name(), m.provider(), m.model(), Optional.of(baseUrl), m.apiKeyEnv(), m.timeout()));
    return new FlowsConfig(servers.file(), servers.mcp(), models);
  }

  int run(FlowsConfig servers) throws Exception {
    try (DemoPaymentsServer model =
        DemoPaymentsServer.startModel(root, root.resolve(SCRIPT).toAbsolutePath())) {
      s.notice("flows demo: scripted model server (" + SCRIPT + ") on " + model.endpoint());
      FlowsConfig config = withModelAt(servers, model.endpoint());
      Path flowFile = root.resolve(FLOW);
      LoadedFlow flow = LoadedFlow.load(flowFile.toString(), flowFile.getParent());
      JsonNode input =
          s.object()
              .put("email", "ada@example.com")
              .put("message", "I was charged twice for my subscription, please refund");
      RunRef id;
      try {
        id = engine.admit(flow, input, Optional.empty(), engine.preflight(flow, config)).runId();
      } catch (PreflightException e) {
        return EngineSupport.refusePreflight(s, e);
      }
      s.notice("flows demo: started run " + id.value() + " (flow agent)");
      engine.startWorker();
      RunFollower follower = new RunFollower(s, engine.journal(), id);
      RunSnapshot end = follower.untilSettled();
      for (int i = 0; i < MAX_ANSWERS && end.status() == RunStatus.PARKED; i++) {
        if (!answer(engine.journal(), end)) {
          break;
        }
        end = follower.untilSettled();
      }
      report(engine.journal(), id, end);
      return RunsCommand.exitFor(end.status());
    }
  }

  /**
   * Answers the call the parked run waits on, as the operator: an approval with {@code approve},
   * the payments server's confirmation with the amount it asks about; false when the run is parked
   * on something else (left for a person, as {@code runs show} tells).
   */
  private boolean answer(Journal journal, RunSnapshot run) {
    Optional<StepSnapshot> parked =
        run.steps().stream().filter(st -> st.status() == StepStatus.PARKED).findFirst();
    if (parked.isEmpty()) {
      return false;
    }
    RunJson.ResolveTarget target = RunJson.resolveTarget(journal, run, parked.get().stepId(), 0);
    if (target.input().isEmpty()) {
      return false;
    }
    JsonNode park = target.input().get();
    JsonNode args = park.path("input");
    ObjectNode answer = s.object();
    String what;
    if (ToolApproval.asks(park)) {
      answer.put(ToolApproval.APPROVE, true);
      what = "approves";
    } else if (park.path("inputRequests").path("confirm").isObject()) {
      answer.put("confirmAmountCents", args.path("amountCents").asLong());
      what = "confirms";
    } else {
      return false;
    }
    String call = park.path("server").asText() + "/" + park.path("tool").asText();
    ObjectNode event = s.object().put("type", "demo.answer").put("by", ACTOR);
    event.put("runId", target.run().value()).put("stepId", target.stepId()).put("call", call);
    event.set("arguments", args);
    event.set("answer", answer);
    s.event(
        event,
        "demo (the operator) "
            + what
            + " "
            + call
            + " with "
            + args
            + ": flows runs answer "
            + target.run().value()
            + " "
            + target.stepId()
            + " '"
            + answer
            + "'");
    journal.answerInput(target.run(), target.stepId(), new InputAnswer.Accept(answer), ACTOR);
    return true;
  }

  /** The run's end: the model's turns, the tool calls (receipts), the final answer. */
  private void report(Journal journal, RunRef id, RunSnapshot end) {
    ObjectNode summary = s.object().put("type", "demo.end");
    summary.set("run", RunJson.summary(end));
    summary.set("turns", ModelFixture.of(journal, id).path("turns"));
    ArrayNode calls = DemoCommand.childReceipts(journal, id, summary.putArray("toolCalls"));
    end.steps().getFirst().output().ifPresent(o -> summary.set("output", o));
    s.emit(
        summary,
        p -> {
          p.println();
          p.println("run " + id.value() + " " + end.status().wire());
          p.println("turns:");
          int n = 1;
          for (JsonNode t : summary.path("turns")) {
            p.println("  " + n++ + ". " + turnText(t));
          }
          p.println("tool calls:");
          for (JsonNode r : calls) {
            p.println(
                "  "
                    + RunText.receiptText(r)
                    + (r.has(ToolApproval.KEY)
                        ? " ("
                            + r.at("/approval/decision").asText()
                            + " by "
                            + r.at("/approval/by").asText()
                            + ")"
                        : ""));
          }
          end.steps()
              .getFirst()
              .output()
              .ifPresent(o -> p.println("answer: " + o.path("answer").asText(o.toString())));
          p.println();
          p.println("next:");
          p.println("  ./flows runs show " + id.value() + "   # turns, tool calls, approvals");
          p.println("  ./flows runs export-fixture " + id.value() + "   # the turns as a script");
        });
  }

  private static String turnText(JsonNode t) {
    if (t.has("toolCalls")) {
      StringBuilder b = new StringBuilder("asks for");
      for (JsonNode c : t.path("toolCalls")) {
        b.append(' ').append(c.path("name").asText()).append(c.path("arguments").asText());
      }
      return b.toString();
    }
    return "answers: " + t.path("text").asText(t.path("refused").asText());
  }
}
