package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.DurableInput;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.MemoVerb;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.ToolApproval;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.InputRequest;
import dev.flows.kernel.mcp.InputResponses;
import dev.flows.kernel.mcp.LiveInput;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.InputReply;
import dev.flows.worker.mcp.LiveInputs;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The body's side of {@code f.mcp(s).tool(t).onInput(handler)}. The handler is a lambda of the flow
 * class, so it runs in the body, never where the call runs: a call answered {@code input_required}
 * parks its child step (an inline call and a claimed one alike), the body waiting on it sees the
 * park, asks the handler once per round, journals the answer as a memo at {@code
 * /memo/<position>/input/<round>} and answers the step through {@link Journal#answerInput}, then
 * waits again while some worker re-issues the call. A replay finds the memo and never asks again; a
 * crash between the memo and the answer is finished by the replay from the memo.
 */
final class InputAnswers {
  static final String VERB = MemoVerb.ON_INPUT.wire();
  static final String BY = MemoVerb.ON_INPUT.wire();
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final Journal journal;
  private final BodyMemos memos;
  private final RunRef root;

  InputAnswers(Journal journal, BodyMemos memos, RunRef root) {
    this.journal = journal;
    this.memos = memos;
    this.root = root;
  }

  /**
   * {@code await}'s answer; each time it throws {@link ParkSignal} for {@code child} parked for
   * input, the handler's answer is given and {@code await} is asked again. Without a handler, as
   * {@code await}.
   */
  JsonNode await(
      int pos,
      RunRef child,
      String call,
      Optional<Ctx.InputHandler> handler,
      Supplier<JsonNode> await) {
    while (true) {
      try {
        return await.get();
      } catch (ParkSignal parked) {
        if (handler.isEmpty() || !parked.child.equals(child) || parked.why.isPresent()) {
          throw parked;
        }
        if (!answer(pos, child, call, handler.get())) {
          throw parked;
        }
      }
    }
  }

  /**
   * {@code body} (which issues and awaits the call at {@code pos}) with {@code handler}, if any,
   * answering the live requests of a 2025 server during the call while the body waits on it: each
   * is round {@code live-<n>} of the call, journaled like a parked round, so a replay whose re-sent
   * call is asked again answers from the memo. A handler that fails, or answers what the schema
   * refuses, declines (the receipt notes it).
   */
  JsonNode live(int pos, String call, Optional<Ctx.InputHandler> handler, Supplier<JsonNode> body) {
    if (handler.isEmpty()) {
      return body.get();
    }
    AtomicInteger asked = new AtomicInteger();
    LiveInput live =
        request -> {
          String round = "live-" + asked.incrementAndGet();
          ObjectNode park = JSON.objectNode();
          park.putObject(DurableInput.REQUESTS).set(LIVE, request.raw());
          JsonNode memo =
              memos
                  .inputAnswer(pos, round)
                  .orElseGet(
                      () -> memos.keepInputAnswer(pos, round, ask(handler.get(), park, call)));
          if (memo.has("error") || memo.path("decline").asBoolean()) {
            return InputResponses.decline();
          }
          return DurableInput.responses(call, park, new InputAnswer.Accept(memo.path("answer")))
              .get(LIVE);
        };
    try (AutoCloseable answering = LiveInputs.answerBy(Lowering.childId(root, pos), live)) {
      return body.get();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static final String LIVE = "live";

  /** Answers the round {@code child} is parked on; false when it is parked for another reason. */
  private boolean answer(int pos, RunRef child, String call, Ctx.InputHandler handler) {
    RunSnapshot run = journal.run(child).orElseThrow();
    if (run.status() != RunStatus.PARKED) {
      return true; // answered meanwhile (an operator): wait for the re-issue
    }
    String stepId = run.steps().getFirst().stepId();
    List<JournalRecord> entries = journal.entries(child);
    Optional<JsonNode> park = DurableInput.parked(entries, stepId);
    // An approval is a person's to give, never the handler's.
    if (park.isEmpty() || ToolApproval.asks(park.get())) {
      return false;
    }
    String round = String.valueOf(rounds(entries, stepId));
    JsonNode memo =
        memos
            .inputAnswer(pos, round)
            .orElseGet(() -> memos.keepInputAnswer(pos, round, ask(handler, park.get(), call)));
    if (memo.has("error")) {
      throw new ParkSignal(child, Optional.of(stuck(call, round, memo, child, stepId)));
    }
    InputAnswer answer =
        memo.path("decline").asBoolean()
            ? new InputAnswer.Decline()
            : new InputAnswer.Accept(memo.path("answer"));
    try {
      journal.answerInput(child, stepId, answer, BY);
    } catch (FlowsException e) {
      // Answered (or resolved) by someone else since the look: wait for what they decided.
      if (e.code() != ErrorCode.INVALID_INPUT
          || journal.run(child).orElseThrow().status() == RunStatus.PARKED) {
        throw e;
      }
    }
    return true;
  }

  /** The handler's answer to every request of the round, checked, as the memo to journal. */
  private static ObjectNode ask(Ctx.InputHandler handler, JsonNode park, String call) {
    ObjectNode memo = BodyMemos.verb(VERB);
    JsonNode requests = park.path(DurableInput.REQUESTS);
    ObjectNode byKey = JSON.objectNode();
    boolean declined = false;
    try {
      for (Iterator<String> it = requests.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        InputReply reply = handler.answer(prompt(InputRequest.of(requests.get(key))));
        switch (reply) {
          case InputReply.Accept a -> byKey.set(key, a.content());
          case InputReply.Decline d -> declined = true;
          case null ->
              throw new IllegalArgumentException(
                  "the handler answered null for request " + key + "; answer InputReply.decline()");
        }
      }
      if (declined) {
        return memo.put("decline", true);
      }
      JsonNode answer = requests.size() == 1 ? byKey.elements().next() : byKey;
      // Checked as the operator's answer is: a bad one is kept as the round's failure.
      DurableInput.responses(call, park, new InputAnswer.Accept(answer));
      memo.set("answer", answer);
      return memo;
    } catch (Exception e) {
      ObjectNode error = memo.putObject("error");
      if (e instanceof FlowsException f) {
        error.put("code", f.code().wire());
      } else if (e instanceof FlowsError f) {
        error.put("code", f.code());
      }
      error.put("exception", e.getClass().getName());
      error.put("message", String.valueOf(e.getMessage()));
      return memo;
    }
  }

  private static String stuck(
      String call, String round, JsonNode memo, RunRef child, String stepId) {
    JsonNode e = memo.path("error");
    return "the onInput handler of "
        + call
        + " could not answer round "
        + round
        + " ("
        + e.path("exception").asText()
        + ": "
        + e.path("message").asText()
        + "); the call stays parked for an operator: `flows runs answer "
        + child.value()
        + " "
        + stepId
        + " RESPONSE_JSON` (or --decline)";
  }

  /** How many times {@code stepId} parked for input: the round it is parked on now. */
  private static int rounds(List<JournalRecord> entries, String stepId) {
    int n = 0;
    for (JournalRecord r : entries) {
      if (r.entry() instanceof JournalEntry.StepCompleted c
          && c.stepId().equals(stepId)
          && c.disposition() == Disposition.PARK
          && c.trajectoryTail().filter(DurableInput::asksForInput).isPresent()) {
        n++;
      }
    }
    return n;
  }

  /** A server's request as the public API shows it to a body's handler. */
  static dev.flows.sdk.InputPrompt prompt(InputRequest r) {
    return switch (r) {
      case InputRequest.Form f ->
          new dev.flows.sdk.InputPrompt.Form(f.message(), f.requestedSchema(), f.raw());
      case InputRequest.Url u -> new dev.flows.sdk.InputPrompt.Url(u.message(), u.url(), u.raw());
      case InputRequest.Other o -> new dev.flows.sdk.InputPrompt.Other(o.method(), o.raw());
    };
  }
}
