package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.mcp.ElicitationSchema;
import dev.flows.kernel.mcp.InputRequest;
import dev.flows.kernel.mcp.InputResponses;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Durable input, the same for every journal: a call the server answered {@code input_required}
 * parks its step with a trajectory tail holding what was asked ({@code inputRequests}, each as the
 * server wrote it, under the server's key) and the {@code requestState} to echo; {@link
 * Journal#answerInput} checks an answer against it and journals the {@code inputResponses} to send
 * ({@code step.answered}); the next attempt re-issues the call with them ({@link #pending}).
 */
public final class DurableInput {
  private DurableInput() {}

  /** The diagnostic of a step parked for input. */
  public static final String DIAGNOSTIC = ErrorCode.INPUT_REQUIRED.wire();

  public static final String REQUESTS = "inputRequests";
  public static final String REQUEST_STATE = "requestState";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /**
   * {@code tail} (a call's trajectory tail) made the tail of a park for input: the diagnostic, the
   * requests in key order and the state to echo.
   */
  public static ObjectNode parkTail(
      ObjectNode tail, Map<String, InputRequest> requests, Optional<String> requestState) {
    tail.put("diagnostic", DIAGNOSTIC);
    ObjectNode r = tail.putObject(REQUESTS);
    new TreeMap<>(requests).forEach((k, v) -> r.set(k, v.raw()));
    requestState.ifPresent(s -> tail.put(REQUEST_STATE, s));
    return tail;
  }

  /** The park tail of {@code stepId} when its latest attempt parked for input. */
  public static Optional<JsonNode> parked(List<JournalRecord> entries, String stepId) {
    Optional<JsonNode> last = Optional.empty();
    for (JournalRecord rec : entries) {
      if (rec.entry() instanceof JournalEntry.StepCompleted c && c.stepId().equals(stepId)) {
        last =
            c.disposition() == Disposition.PARK
                ? c.trajectoryTail().filter(DurableInput::asksForInput)
                : Optional.empty();
      }
    }
    return last;
  }

  /** Whether a trajectory tail is one of a park for input. */
  public static boolean asksForInput(JsonNode tail) {
    // A flow body parked on a call that waits for input says input_required too, but holds no
    // requests: only the call's own step takes the answer.
    return DIAGNOSTIC.equals(tail.path("diagnostic").asText()) && tail.path(REQUESTS).isObject();
  }

  /** The answers of a parked call and the state to echo when it is re-issued. */
  public record Pending(Map<String, JsonNode> inputResponses, Optional<String> requestState) {
    public Pending {
      inputResponses = Map.copyOf(inputResponses);
    }
  }

  /**
   * What the next attempt of {@code stepId} re-issues its call with: the answers journaled after
   * its latest park for input, with that park's {@code requestState}; empty when the step never
   * parked for input or its latest park is not answered.
   */
  public static Optional<Pending> pending(List<JournalRecord> entries, String stepId) {
    Optional<JsonNode> park = Optional.empty();
    Optional<Pending> answered = Optional.empty();
    for (JournalRecord rec : entries) {
      if (rec.entry() instanceof JournalEntry.StepCompleted c
          && c.stepId().equals(stepId)
          && c.disposition() == Disposition.PARK
          && c.trajectoryTail().filter(DurableInput::asksForInput).isPresent()) {
        // An approval's answer is flows' own, never sent to the server.
        park = c.trajectoryTail().filter(t -> !ToolApproval.asks(t));
        answered = Optional.empty();
      } else if (rec.entry() instanceof JournalEntry.StepAnswered a
          && a.stepId().equals(stepId)
          && park.isPresent()) {
        Map<String, JsonNode> responses = new TreeMap<>();
        a.responses().fields().forEachRemaining(f -> responses.put(f.getKey(), f.getValue()));
        JsonNode state = park.get().path(REQUEST_STATE);
        answered =
            Optional.of(
                new Pending(
                    responses, state.isTextual() ? Optional.of(state.asText()) : Optional.empty()));
      }
    }
    return answered;
  }

  /**
   * The {@code inputResponses} {@code answer} stands for, checked against the requests of {@code
   * park}. Refused {@code invalid_input} (at {@code place}) when it does not fit: a form answer the
   * requested schema refuses (the message names the field and why), a URL answer other than {@code
   * {}}, content for a request that is not a form or a URL, several requests answered without an
   * object keyed by request.
   */
  public static ObjectNode responses(String place, JsonNode park, InputAnswer answer) {
    return responses(place, park, answer, PayloadLimits.DEFAULTS);
  }

  /** As {@link #responses(String, JsonNode, InputAnswer)}, the answer held to {@code limits}. */
  public static ObjectNode responses(
      String place, JsonNode park, InputAnswer answer, PayloadLimits limits) {
    limits.requireAnswer(answer, place);
    JsonNode requests = park.path(REQUESTS);
    ObjectNode out = JSON.objectNode();
    if (ToolApproval.asks(park)) {
      return out.set(ToolApproval.KEY, ToolApproval.answer(place, answer));
    }
    switch (answer) {
      case InputAnswer.Decline d ->
          requests.fieldNames().forEachRemaining(k -> out.set(k, InputResponses.decline()));
      case InputAnswer.Accept a -> {
        Map<String, JsonNode> byKey = new TreeMap<>();
        if (requests.size() == 1) {
          byKey.put(requests.fieldNames().next(), a.response());
        } else {
          for (Iterator<String> it = requests.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!a.response().has(k)) {
              throw refused(
                  place,
                  "the answer has no entry for request " + k,
                  "answer each request under its key: " + keys(requests));
            }
            byKey.put(k, a.response().get(k));
          }
        }
        byKey.forEach((k, v) -> out.set(k, accept(place, k, requests.get(k), v)));
      }
    }
    return out;
  }

  private static JsonNode accept(String place, String key, JsonNode request, JsonNode answer) {
    JsonNode params = request.path("params");
    if (!"elicitation/create".equals(request.path("method").asText())) {
      throw refused(
          place,
          "request " + key + " (" + request.path("method").asText() + ") takes no answer here",
          "decline it (--decline)");
    }
    if ("url".equals(params.path("mode").asText()) || params.has("url")) {
      if (!answer.isObject() || !answer.isEmpty()) {
        throw refused(
            place,
            "request " + key + " asks to visit a URL; its answer is {} once it was visited",
            "answer {} or decline (--decline)");
      }
      return InputResponses.accepted();
    }
    JsonNode schema = params.path("requestedSchema");
    Optional<String> bad = ElicitationSchema.violation(schema, answer);
    if (bad.isPresent()) {
      throw refused(
          place,
          "the answer to " + key + " does not match the requested schema: " + bad.get(),
          "answer with an object the schema accepts: " + schema);
    }
    return InputResponses.accept(answer.deepCopy());
  }

  private static String keys(JsonNode requests) {
    StringBuilder b = new StringBuilder();
    requests.fieldNames().forEachRemaining(k -> b.append(b.isEmpty() ? "" : ", ").append(k));
    return b.toString();
  }

  private static FlowsException refused(String place, String message, String fix) {
    return new FlowsException(ErrorCode.INVALID_INPUT, message, place, fix);
  }

  /**
   * Refused {@code invalid_input} unless {@code stepId} (now {@code status}) is parked for input:
   * the park tail to answer.
   */
  public static JsonNode requireParked(
      List<JournalRecord> entries, RunRef runId, String stepId, StepStatus status) {
    Optional<JsonNode> park =
        status == StepStatus.PARKED ? parked(entries, stepId) : Optional.empty();
    return park.orElseThrow(
        () ->
            refused(
                runId.value() + "/" + stepId,
                "step "
                    + stepId
                    + " is "
                    + status.wire()
                    + (status == StepStatus.PARKED ? " on another diagnostic" : "")
                    + ", not parked for input",
                "only a step parked input_required takes an answer (`flows runs show "
                    + runId.value()
                    + "`)"));
  }
}
