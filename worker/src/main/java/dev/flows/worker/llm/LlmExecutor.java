package dev.flows.worker.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.LiveText;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.llm.LlmAnswer;
import dev.flows.kernel.llm.LlmReceipt;
import dev.flows.kernel.llm.LlmRequest;
import dev.flows.kernel.llm.ModelPort;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import dev.flows.worker.FaultPoint;
import dev.flows.worker.StepExecution;
import dev.flows.worker.StepExecutor;
import java.util.Map;
import java.util.Optional;

/**
 * Runs {@code llm} steps: the model call is an effect on {@link StepBody.Llm#SURFACE}, recorded
 * (its idempotency key elected) before the model is asked and confirmed with the receipt after, as
 * the MCP executor does. A confirmed call answers its receipt without asking again; a call an
 * earlier attempt recorded and never confirmed is asked again (a model call has no outside effect).
 */
public final class LlmExecutor implements StepExecutor {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private final ModelRegistry registry;
  private final LlmCalls calls;
  private final LiveText live;

  public LlmExecutor(ModelRegistry registry, LlmCalls calls) {
    this(registry, calls, LiveText.NONE);
  }

  /** An executor that streams each model call, its text published to {@code live} as it grows. */
  public LlmExecutor(ModelRegistry registry, LlmCalls calls, LiveText live) {
    this.registry = registry;
    this.calls = calls;
    this.live = live;
  }

  @Override
  public StepKind kind() {
    return StepKind.LLM;
  }

  @Override
  public StepOutcome execute(StepExecution ex) throws InterruptedException {
    StepBody.Llm body = (StepBody.Llm) ex.attempt().step().body();
    Map.Entry<String, ModelPort> model;
    try {
      model = registry.models().require(body.model(), "step " + ex.attempt().step().id());
    } catch (FlowsException undeclared) {
      // Nothing was asked; a worker without the model cannot run the step on another attempt.
      return failed(tail(body.model(), Optional.empty(), ""), undeclared, false);
    }
    ModelPort port = model.getValue();
    EffectElection e = ex.effects().record(StepBody.Llm.SURFACE);
    String key = e.idempotencyKey();
    if (e.deduped() && e.confirmedOutput().isPresent()) {
      return new StepOutcome.Succeeded(e.confirmedOutput().get());
    }
    FaultPoint.AFTER_RECORD.reached();
    LeaseToken lease = ex.attempt().lease();
    // Streamed text is live only until the receipt is journaled: cleared after the confirm.
    try (LiveTurn turn = new LiveTurn(live, lease.runId(), lease.stepId())) {
      LlmAnswer answer;
      try {
        answer = calls.call(port, LlmRequest.prompt(body.prompt()), turn);
      } catch (FlowsException refused) {
        return failed(tail(model.getKey(), Optional.of(port), key), refused, refused.retryable());
      }
      ObjectNode receipt = LlmReceipt.of(model.getKey(), port, answer, key);
      FaultPoint.AFTER_CALL_BEFORE_CONFIRM.reached();
      ex.effects().confirm(StepBody.Llm.SURFACE, Optional.of(receipt));
      return new StepOutcome.Succeeded(receipt);
    }
  }

  private static ObjectNode tail(String model, Optional<ModelPort> port, String key) {
    ObjectNode t = JSON.objectNode().put("type", LlmReceipt.TYPE).put("model", model);
    port.ifPresent(p -> t.put("provider", p.provider()));
    if (!key.isEmpty()) {
      t.put("idempotencyKey", key);
    }
    return t;
  }

  private static StepOutcome failed(ObjectNode tail, FlowsException e, boolean retryable) {
    tail.put("diagnostic", e.code().wire()).put("message", e.getMessage());
    return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, (JsonNode) tail, retryable);
  }
}
