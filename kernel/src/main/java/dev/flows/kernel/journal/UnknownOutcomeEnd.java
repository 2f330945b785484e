package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The end of a step that used up its attempts, or whose failure is not retried and says its call
 * may have been sent ({@link dev.flows.kernel.mcp.McpCallFailures}), while an effect it recorded
 * was never confirmed: some attempt may have sent it, so its outcome is unknown, and a failure
 * would tell the caller it did not happen (the caller would then compensate, or try again under a
 * new key). The step parks {@code effect_outcome_unknown} for an operator instead, with the last
 * failure's diagnostic in its tail; only a call whose policy says {@code onUnknownOutcome fail}
 * fails, with that code. Applies to an MCP call's step (the one effect that acts on a server): an
 * llm step's, or a flow body's open {@code f.llm} election, is a model call that changes nothing
 * outside, and a step with no open election (none recorded, or every one confirmed) ends as any
 * other.
 */
final class UnknownOutcomeEnd {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private UnknownOutcomeEnd() {}

  /**
   * The end of step {@code spec} of {@code run} whose last attempt would fail by {@code failing},
   * when {@code unconfirmed} names an open election of it: journaled with {@code reason} (the
   * worker's, or {@code lease_expired} for an expiry, so an expiry that carries a tail still reads
   * as the journal's own end); {@code lastTail} the attempt's own tail (none for an expiry).
   */
  static Optional<AttemptEnd> of(
      RunRef run,
      StepSpec spec,
      Supplier<Optional<JournalEntry.EffectRef>> unconfirmed,
      StepTransition failing,
      CompletionReason reason,
      Optional<JsonNode> lastTail) {
    if (!(spec.body() instanceof StepBody.Agent agent)
        || !McpCallInstruction.TYPE.equals(agent.instructionType())) {
      return Optional.empty();
    }
    Optional<JournalEntry.EffectRef> open = unconfirmed.get();
    if (open.isEmpty()) {
      return Optional.empty();
    }
    boolean expired = failing == StepTransition.LEASE_EXPIRED_EXHAUSTED;
    ObjectNode tail =
        lastTail
            .filter(JsonNode::isObject)
            .map(t -> (ObjectNode) t.deepCopy())
            .orElseGet(() -> tail(agent));
    String why = why(open.get(), tail, expired, reason);
    tail.put(
        "lastDiagnostic", expired ? reason.wire() : tail.path("diagnostic").asText(reason.wire()));
    tail.put("diagnostic", ErrorCode.EFFECT_OUTCOME_UNKNOWN.wire());
    tail.put("surfacePath", open.get().surfacePath());
    tail.put("idempotencyKey", open.get().idempotencyKey());
    if (failsOnUnknownOutcome(agent)) {
      tail.put("message", why + " The call's policy (onUnknownOutcome fail) fails it.");
      return Optional.of(
          new AttemptEnd(failing, reason, Disposition.STEP_DONE, true, Optional.of(tail)));
    }
    tail.put("message", why + " The step is parked, not failed. " + fix(run, spec));
    StepTransition parks =
        expired ? StepTransition.LEASE_EXPIRED_PARKED : StepTransition.COMPLETED_PARKED;
    return Optional.of(new AttemptEnd(parks, reason, Disposition.PARK, true, Optional.of(tail)));
  }

  /** What is known: the effect, its key, and how the last attempt ended ({@code tail}: its own). */
  private static String why(
      JournalEntry.EffectRef open, ObjectNode tail, boolean expired, CompletionReason reason) {
    String last =
        expired
            ? "its lease ran out (the worker stopped answering)"
            : "failed " + tail.path("diagnostic").asText(reason.wire());
    String lastMessage = expired ? "" : tail.path("message").asText("");
    return "effect "
        + open.surfacePath()
        + " (idempotency key "
        + open.idempotencyKey()
        + ") was sent and never confirmed, and it is not tried again: the server may"
        + " have performed it. The last attempt "
        + last
        + (lastMessage.isEmpty() ? "" : ": " + lastMessage)
        + ".";
  }

  /** The operator's ways on: say what happened, or try once more once the server is back. */
  private static String fix(RunRef run, StepSpec spec) {
    return "Say what happened: `flows runs resolve "
        + run.value()
        + " "
        + spec.id()
        + " --performed RESULT_JSON` (or `--not-performed`: it runs again); or, once the"
        + " server is back, `flows runs resume "
        + run.value()
        + "` tries once more (with the same key when the call may be sent again; else it"
        + " parks again).";
  }

  /** A tail for an attempt that reported none: the MCP call's identity. */
  private static ObjectNode tail(StepBody.Agent agent) {
    JsonNode in = agent.instruction();
    ObjectNode t = JSON.objectNode().put("type", McpCallInstruction.TYPE);
    t.set("server", in.path("server"));
    t.set("tool", in.path("tool"));
    t.set("input", in.path("input"));
    return t;
  }

  private static boolean failsOnUnknownOutcome(StepBody.Agent agent) {
    try {
      return McpCallInstruction.of(agent).failsOnUnknownOutcome();
    } catch (FlowsException malformed) {
      return false;
    }
  }
}
