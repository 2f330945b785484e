package dev.flows.sdk.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoVerb;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.llm.LlmAnswer;
import dev.flows.kernel.llm.LlmException;
import dev.flows.kernel.llm.LlmMessage;
import dev.flows.kernel.llm.LlmReceipt;
import dev.flows.kernel.llm.LlmReceipts;
import dev.flows.kernel.llm.LlmRequest;
import dev.flows.kernel.llm.LlmToolSpec;
import dev.flows.kernel.llm.ModelPort;
import dev.flows.kernel.llm.SpendLimit;
import dev.flows.sdk.Budget;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.LlmCall;
import dev.flows.sdk.LlmResult;
import dev.flows.sdk.TokenUsage;
import dev.flows.worker.FaultPoint;
import dev.flows.worker.llm.LiveTurn;
import dev.flows.worker.llm.ResponseSchemas;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;

/**
 * {@code f.llm}: a model call as an effect of the body's step at {@code /memo/<position>}. The
 * memos written behind the body are journaled first; then the effect is recorded (its key elected),
 * the model asked, and the effect confirmed with {@code {"verb":"f.llm", ...receipt}} or, when the
 * provider refused, {@code {"verb":"f.llm", model, error:{code, message}}}. A replay answers from
 * that memo without asking the model; a call recorded by an attempt that died before confirming it
 * is asked again under the same key (a model call has no outside effect).
 */
final class ModelCalls {
  private static final String VERB = MemoVerb.LLM.wire();
  private final Journal journal;
  private final LeaseToken lease;
  private final BodyMemos memos;
  private final FlowHeader header;
  private final BodyModels models;
  private final IntSupplier nextPosition;
  private final ClaimedAttempt attempt;
  private final PayloadLimits limits;
  private Budgets budgets;

  ModelCalls(
      Journal journal,
      ClaimedAttempt attempt,
      BodyMemos memos,
      FlowHeader header,
      BodyModels models,
      IntSupplier nextPosition,
      PayloadLimits limits) {
    this.journal = journal;
    this.limits = limits;
    this.lease = attempt.lease();
    this.memos = memos;
    this.header = header;
    this.models = models;
    this.nextPosition = nextPosition;
    this.attempt = attempt;
  }

  /** The run budgets over this body, read when its first model call needs them. */
  synchronized Budgets budgets() {
    if (budgets == null) {
      budgets =
          Budgets.of(
              journal,
              lease.runId(),
              ((dev.flows.kernel.spec.StepBody.Agent) attempt.step().body()).instruction(),
              attempt.parentRunId());
    }
    return budgets;
  }

  LlmCall<String> call(String model) {
    if (!header.models().contains(model)) {
      throw new FlowsException(
          ErrorCode.LLM_UNDECLARED_MODEL,
          "the body calls model '" + model + "' that the header does not declare",
          "flow " + header.name(),
          "add \"" + model + "\" to the header's models (and to flows.json or the builder)");
    }
    return new Handle<>(this, model, List.of(), List.of(), String.class, false, Optional.empty());
  }

  /** A call being written; immutable. */
  record Handle<T>(
      ModelCalls calls,
      String model,
      List<LlmMessage> messages,
      List<LlmToolSpec> tools,
      Class<T> type,
      boolean structured,
      Optional<Budget> budget)
      implements LlmCall<T> {
    Handle(
        ModelCalls calls,
        String model,
        List<LlmMessage> messages,
        List<LlmToolSpec> tools,
        Class<T> type,
        boolean structured) {
      this(calls, model, messages, tools, type, structured, Optional.empty());
    }

    @Override
    public LlmCall<T> system(String text) {
      return with(LlmMessage.system(text));
    }

    @Override
    public LlmCall<T> user(String text) {
      return with(LlmMessage.user(text));
    }

    private Handle<T> with(LlmMessage m) {
      List<LlmMessage> more = new ArrayList<>(messages);
      more.add(m);
      return new Handle<>(calls, model, more, tools, type, structured, budget);
    }

    @Override
    public <R> LlmCall<R> responseFormat(Class<R> t) {
      return new Handle<>(calls, model, messages, tools, t, true, budget);
    }

    @Override
    public LlmCall<T> budget(Budget b) {
      return new Handle<>(calls, model, messages, tools, type, structured, Optional.of(b));
    }

    @Override
    public LlmResult<T> call() {
      return calls.perform(this);
    }
  }

  private <T> LlmResult<T> perform(Handle<T> h) {
    JsonNode memo = memo(h);
    if (h.budget().isPresent() && LlmReceipts.isReceipt(memo)) {
      // A call's own budget can only be judged on its answer: journaled, it counts all the same.
      SpendLimit limit = Budgets.limit(h.budget().get());
      Budgets.requirePrice(limit, budgets().prices(), h.model(), "f.llm(\"" + h.model() + "\")");
      SpendLimit.Used used = budgets().plus(SpendLimit.Used.NONE, h.model(), memo);
      if (limit.passedBy(used)) {
        throw Budgets.exhausted("the call", used, limit, "f.llm(\"" + h.model() + "\")");
      }
    }
    return answer(memo, h);
  }

  /**
   * One model call's memo, journaled at the next position (or read back from the journal): its
   * receipt, or the provider's refusal.
   */
  JsonNode memo(Handle<?> h) {
    int pos = nextPosition.getAsInt();
    String described = "f.llm(\"" + h.model() + "\")";
    Optional<JsonNode> journaled = memos.of(pos, VERB, described);
    if (journaled.isPresent()) {
      if (!journaled.get().path("model").asText().equals(h.model())) {
        throw memos.refuse(pos, journaled.get(), described);
      }
      return journaled.get();
    }
    if (h.messages().isEmpty()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          described + " has no message to send",
          "flow " + header.name(),
          "add .user(text) (or .system(text)) before .call()");
    }
    // A model this worker lacks fails the call before anything is recorded for it.
    Map.Entry<String, ModelPort> port =
        models.registry().models().require(h.model(), "flow " + header.name());
    budgets().checkRuns(h.model(), described);
    memos.flush();
    String surface = "/memo/" + pos;
    EffectElection e = journal.recordEffect(lease, surface);
    if (e.deduped() && e.confirmedOutput().isPresent()) {
      memos.remember(pos, e.confirmedOutput().get());
      return e.confirmedOutput().get();
    }
    FaultPoint.AFTER_RECORD.reached();
    // Streamed text is live only until the answer is journaled: cleared after the confirm.
    try (LiveTurn live = new LiveTurn(journal.liveText(), lease.runId(), lease.stepId())) {
      ObjectNode memo = bounded(ask(h, port, e.idempotencyKey(), live), h, e.idempotencyKey());
      FaultPoint.AFTER_CALL_BEFORE_CONFIRM.reached();
      journal.confirmEffect(lease, surface, Optional.of(memo));
      memos.remember(pos, memo);
      return memo;
    }
  }

  /**
   * A memo past the worker's {@code maxStepOutputBytes} is journaled as the call's refusal ({@code
   * payload_too_large}), never itself: the call fails with the code now and on every replay,
   * without asking the model (and paying) again, and the body may catch it and still end its step.
   */
  private ObjectNode bounded(ObjectNode memo, Handle<?> h, String key) {
    try {
      limits.requireMemo("f.llm(\"" + h.model() + "\")'s answer", memo, "flow " + header.name());
      return memo;
    } catch (FlowsException tooLarge) {
      ObjectNode refused = BodyMemos.verb(VERB);
      refused.put("model", h.model()).put("idempotencyKey", key);
      refused
          .putObject("error")
          .put("code", tooLarge.code().wire())
          .put("message", tooLarge.getMessage());
      return refused;
    }
  }

  /** The memo of one model call: its receipt, or the provider's refusal. */
  private ObjectNode ask(
      Handle<?> h, Map.Entry<String, ModelPort> port, String key, LiveTurn live) {
    ObjectNode memo = BodyMemos.verb(VERB);
    try {
      LlmRequest request =
          new LlmRequest(
              h.messages(),
              h.tools(),
              h.structured() ? Optional.of(ResponseSchemas.of(h.type())) : Optional.empty());
      LlmAnswer a = models.calls().call(port.getValue(), request, live);
      memo.setAll(LlmReceipt.of(h.model(), port.getValue(), a, key));
    } catch (LlmException refused) {
      memo.put("model", h.model()).put("idempotencyKey", key);
      memo.putObject("error")
          .put("code", refused.code().wire())
          .put("message", refused.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlowsException(
          ErrorCode.LEASE_CONFLICT,
          "attempt interrupted during a model call",
          "f.llm(\"" + h.model() + "\")",
          "the journal re-drives the run");
    }
    return memo;
  }

  private static <T> LlmResult<T> answer(JsonNode memo, Handle<T> h) {
    LlmAnswer a = answerOf(memo, h.model());
    TokenUsage usage = new TokenUsage(a.usage().inputTokens(), a.usage().outputTokens());
    ObjectNode receipt = memo.deepCopy();
    receipt.remove(MemoVerb.FIELD);
    return new LlmResult<>(a.text(), value(a.text(), h), usage, receipt);
  }

  /** The answer a memo holds; a journaled refusal is thrown (again, on every replay). */
  static LlmAnswer answerOf(JsonNode memo, String model) {
    JsonNode error = memo.path("error");
    if (error.isObject()) {
      ErrorCode code = ErrorCode.fromWire(error.path("code").asText()).orElse(ErrorCode.LLM_ERROR);
      throw new FlowsException(
          code,
          error.path("message").asText(),
          "f.llm(\"" + model + "\")",
          "see the provider's message; the refusal is journaled, so a replay answers it again");
    }
    return LlmReceipt.answer(memo);
  }

  static <T> T value(String text, Handle<T> h) {
    if (!h.structured()) {
      return h.type().cast(text);
    }
    try {
      return DurableCtx.MAPPER.readValue(text, h.type());
    } catch (JsonProcessingException e) {
      throw new FlowsException(
          ErrorCode.LLM_ERROR,
          "the model's answer is not a " + h.type().getSimpleName() + ": " + e.getOriginalMessage(),
          "f.llm(\"" + h.model() + "\")",
          "make the prompt ask for the schema's fields, or read .text() instead");
    }
  }
}
