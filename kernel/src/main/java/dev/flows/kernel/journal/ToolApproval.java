package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.McpCallInstruction;
import java.util.List;
import java.util.Optional;

/**
 * Tool approval, the same for every journal and worker: an MCP call whose instruction says {@code
 * approval} parks {@code input_required} BEFORE it is sent (no effect recorded, nothing reaches the
 * server) with one request, {@code approval} ({@code {method:"flows/approve", params:{server, tool,
 * arguments}}}); {@link Journal#answerInput} takes {@code {"approve":true}}, {@code
 * {"deny":"reason"}} or {@code {"args":{…}}} (a decline reads as a denial) and journals it in
 * {@code step.answered} with its actor; the next attempt sends the call (with the edited arguments
 * when given) or fails it {@code tool_call_denied} without sending it.
 */
public final class ToolApproval {
  private ToolApproval() {}

  /** The key of the one request of an approval park. */
  public static final String KEY = "approval";

  /** The method of that request: flows', never a server's. */
  public static final String METHOD = "flows/approve";

  public static final String APPROVE = "approve";
  public static final String DENY = "deny";
  public static final String ARGS = "args";

  /** The reason of a denial answered by a decline. */
  static final String DECLINED = "declined";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** What an answered approval decided, and who decided it. */
  public sealed interface Decision {
    String by();

    /** Send the call with its proposed arguments. */
    record Approved(String by) implements Decision {}

    /** Send the call with {@code arguments} instead of the proposed ones. */
    record Edited(JsonNode arguments, String by) implements Decision {}

    /** Do not send the call; the caller reads {@code reason} as the tool's error. */
    record Denied(String reason, String by) implements Decision {}
  }

  /** What the worker does with a call before it records and sends it. */
  public sealed interface Gate {
    /** Send with {@code arguments}; {@code note} (the decision) goes into the receipt. */
    record Send(JsonNode arguments, Optional<ObjectNode> note) implements Gate {}

    /** End the attempt with {@code outcome}, unsent: parked for approval, or denied. */
    record Hold(StepOutcome outcome) implements Gate {}
  }

  /**
   * The gate of call {@code in} (step {@code stepId} of a run with {@code entries}): a call without
   * approval is sent as it is; one not answered yet parks asking for approval; an answered one is
   * sent or denied as decided.
   */
  public static Gate gate(McpCallInstruction in, List<JournalRecord> entries, String stepId) {
    if (!in.approval()) {
      return new Gate.Send(in.input(), Optional.empty());
    }
    Optional<Decision> decided = decision(entries, stepId);
    if (decided.isEmpty()) {
      return new Gate.Hold(ask(in));
    }
    ObjectNode note = JSON.objectNode();
    note.put("by", decided.get().by());
    return switch (decided.get()) {
      case Decision.Approved a ->
          new Gate.Send(in.input(), Optional.of(note.put("decision", "approved")));
      case Decision.Edited e -> {
        note.put("decision", "edited");
        note.set("proposed", in.input());
        yield new Gate.Send(e.arguments(), Optional.of(note));
      }
      case Decision.Denied d -> new Gate.Hold(denied(in, d, note));
    };
  }

  private static StepOutcome ask(McpCallInstruction in) {
    ObjectNode t = tail(in, ErrorCode.INPUT_REQUIRED.wire());
    t.put(
        "message",
        "the call of "
            + in.server()
            + "/"
            + in.tool()
            + " needs approval before it is sent. Answer with `flows runs answer RUN STEP"
            + " '{\"approve\":true}'` | '{\"deny\":\"reason\"}' | '{\"args\":{...}}'.");
    ObjectNode request = t.putObject(DurableInput.REQUESTS).putObject(KEY);
    request.put("method", METHOD);
    ObjectNode params = request.putObject("params");
    params.put("server", in.server()).put("tool", in.tool());
    params.set("arguments", in.input());
    return new StepOutcome.Parked(CompletionReason.WORKER_ERROR, ErrorCode.INPUT_REQUIRED, t);
  }

  private static StepOutcome denied(McpCallInstruction in, Decision.Denied d, ObjectNode note) {
    ObjectNode t = tail(in, ErrorCode.TOOL_CALL_DENIED.wire());
    t.put("message", "the call was denied by " + d.by() + ": " + d.reason());
    t.set(KEY, note.put("decision", "denied").put("reason", d.reason()));
    return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, t, false);
  }

  private static ObjectNode tail(McpCallInstruction in, String diagnostic) {
    ObjectNode t = JSON.objectNode().put("type", McpCallInstruction.TYPE);
    t.put("server", in.server()).put("tool", in.tool());
    t.set("input", in.input());
    return t.put("diagnostic", diagnostic);
  }

  /** Whether a park tail asks for approval (rather than for a server's input). */
  public static boolean asks(JsonNode park) {
    JsonNode requests = park.path(DurableInput.REQUESTS);
    return requests.size() == 1 && METHOD.equals(requests.path(KEY).path("method").asText());
  }

  /**
   * The decision of the latest approval park of {@code stepId}, when it was answered: the answer
   * journaled after it ({@code step.answered}, which holds the actor).
   */
  public static Optional<Decision> decision(List<JournalRecord> entries, String stepId) {
    boolean asked = false;
    Optional<Decision> decided = Optional.empty();
    for (JournalRecord rec : entries) {
      if (rec.entry() instanceof JournalEntry.StepCompleted c
          && c.stepId().equals(stepId)
          && c.disposition() == Disposition.PARK
          && c.trajectoryTail().filter(ToolApproval::asks).isPresent()) {
        asked = true;
        decided = Optional.empty();
      } else if (asked
          && rec.entry() instanceof JournalEntry.StepAnswered a
          && a.stepId().equals(stepId)
          && a.responses().has(KEY)) {
        decided = Optional.of(read(a.responses().get(KEY), a.by()));
      }
    }
    return decided;
  }

  private static Decision read(JsonNode answer, String by) {
    if (answer.has(ARGS)) {
      return new Decision.Edited(answer.get(ARGS), by);
    }
    if (answer.has(DENY)) {
      return new Decision.Denied(answer.get(DENY).asText(), by);
    }
    return new Decision.Approved(by);
  }

  /**
   * The journaled form of {@code answer} to an approval park: {@code {"approve":true}}, {@code
   * {"deny":REASON}} (a decline: {@code {"deny":"declined"}}) or {@code {"args":{…}}}. Refused
   * {@code approval_answer_invalid} (at {@code place}) for any other shape.
   */
  public static ObjectNode answer(String place, InputAnswer answer) {
    return switch (answer) {
      case InputAnswer.Decline d -> JSON.objectNode().put(DENY, DECLINED);
      case InputAnswer.Accept a -> checked(place, a.response());
    };
  }

  private static ObjectNode checked(String place, JsonNode r) {
    if (r.isObject() && r.size() == 1) {
      JsonNode approve = r.path(APPROVE);
      JsonNode deny = r.path(DENY);
      JsonNode args = r.path(ARGS);
      if (approve.isBoolean() && approve.booleanValue()) {
        return JSON.objectNode().put(APPROVE, true);
      }
      if (deny.isTextual() && !deny.asText().isBlank()) {
        return JSON.objectNode().put(DENY, deny.asText());
      }
      if (args.isObject()) {
        ObjectNode o = JSON.objectNode();
        o.set(ARGS, args.deepCopy());
        return o;
      }
    }
    throw new FlowsException(
        ErrorCode.APPROVAL_ANSWER_INVALID,
        "an approval is answered {\"approve\":true}, {\"deny\":\"reason\"} or {\"args\":{...}},"
            + " got "
            + r,
        place,
        "answer one of the three shapes (a denial needs a reason; edited args are a JSON object)");
  }
}
