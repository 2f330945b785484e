package dev.flows.worker.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.MemoVerb;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.mcp.InputRequest;
import dev.flows.kernel.mcp.InputResponses;
import dev.flows.kernel.mcp.LiveInput;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who answers what a 2025 server asks during a call ({@code elicitation/create} on its session).
 * Such a request lives only as long as the session and the waiting call: no journal can hold it
 * across a crash. So only a flow body of this process that waits on the call and has an {@code
 * onInput} handler answers it ({@link #answerBy}, journaling its answer as it does for a parked
 * call); anything else is declined at once. Each request and its answer are noted in the call's
 * receipt ({@code liveInput}).
 */
public final class LiveInputs {
  /** Why a live request was declined without asking anyone. */
  public static final String DECLINED =
      "declined at once: a request bound to a live session cannot survive a crash, so only an"
          + " onInput handler of the flow body waiting on this call, in the process making it,"
          + " answers one";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Map<RunRef, LiveInput> BODIES = new ConcurrentHashMap<>();

  private LiveInputs() {}

  /** While the answer is open, {@code body} answers the live requests of {@code callRun}'s call. */
  public static AutoCloseable answerBy(RunRef callRun, LiveInput body) {
    BODIES.put(callRun, body);
    return () -> BODIES.remove(callRun, body);
  }

  /** The {@link LiveInput} of one attempt of {@code callRun}'s call, noting what it answered. */
  static Recorder forCall(RunRef callRun) {
    return new Recorder(callRun);
  }

  static final class Recorder implements LiveInput {
    private final RunRef run;
    private final List<ObjectNode> notes = new ArrayList<>();

    private Recorder(RunRef run) {
      this.run = run;
    }

    @Override
    public JsonNode answer(InputRequest request) {
      ObjectNode note = JSON.objectNode();
      note.set("request", request.raw());
      LiveInput body = BODIES.get(run);
      JsonNode answer;
      if (body == null) {
        answer = InputResponses.decline();
        note.put("by", "flows").put("diagnostic", DECLINED);
      } else {
        answer = body.answer(request);
        note.put("by", MemoVerb.ON_INPUT.wire());
      }
      note.put("action", answer.path("action").asText());
      synchronized (notes) {
        notes.add(note);
      }
      return answer;
    }

    /** {@code receipt} with the live requests of the call, if any ({@code liveInput}). */
    ObjectNode addTo(ObjectNode receipt) {
      synchronized (notes) {
        if (!notes.isEmpty()) {
          ArrayNode a = receipt.putArray("liveInput");
          notes.forEach(a::add);
        }
      }
      return receipt;
    }
  }
}
