package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.CancelOutcome;
import dev.flows.kernel.journal.InputAnswer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.SignalSent;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.PreflightException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import org.eclipse.jetty.util.Fields;

/**
 * The console's operator actions, each through the journal verb its {@code flows runs} command
 * uses, journaled with the actor ({@code ui:<remote address>}) wherever the journal keeps who did
 * it: the cancel's reason, {@code run.resumed}, {@code step.resolved} and {@code step.answered}'s
 * {@code by}, a rerun's admission key and a signal's key.
 */
final class ConsoleActions {
  /** What an action did: the page to show next, one line, and its JSON. */
  record Done(RunRef page, String text, ObjectNode json) {}

  private final Journal journal;

  ConsoleActions(Journal journal) {
    this.journal = journal;
  }

  Done perform(String action, RunRef id, Fields form, String actor) {
    // Found first: the journal tombstones an unknown id on cancel, a typo must not.
    RunSnapshot before = RunsCommand.existing(journal, id);
    ObjectNode json = Session.JSON.createObjectNode().put("runId", id.value()).put("by", actor);
    return switch (action) {
      case "cancel" -> cancel(id, form, actor, json);
      case "resume" -> resume(id, actor, json);
      case "resolve" -> resolve(before, id, form, actor, json);
      case "signal" -> signal(id, form, actor, json);
      case "rerun" -> rerun(id, actor, json);
      case "answer" -> answer(id, form, actor, json);
      default ->
          throw new ConsoleHandler.Refusal(
              404,
              ErrorCode.INVALID_INPUT.wire(),
              "no action " + Database.oneLine(action),
              action,
              "use cancel, resume, rerun, resolve, answer or signal");
    };
  }

  private Done cancel(RunRef id, Fields form, String actor, ObjectNode json) {
    String reason =
        ConsoleHandler.given(form, "reason")
            .map(r -> r + " (by " + actor + ")")
            .orElse("canceled by " + actor);
    CancelOutcome out = journal.cancelRun(id, reason);
    json.put("status", out.status().wire()).put("alreadyTerminal", out.alreadyTerminal());
    return new Done(
        id,
        out.alreadyTerminal()
            ? "run had already ended " + out.status().wire()
            : "run " + out.status().wire(),
        json);
  }

  private Done resume(RunRef id, String actor, ObjectNode json) {
    RunSnapshot after = journal.resumeRun(id, actor);
    json.set("run", RunJson.summary(after));
    return new Done(id, "run " + after.status().wire() + "; a worker picks it up", json);
  }

  private Done resolve(RunSnapshot before, RunRef id, Fields form, String actor, ObjectNode json) {
    String step = required(form, "step", "the parked step's id");
    boolean performed =
        switch (ConsoleHandler.given(form, "outcome").orElse("")) {
          case "performed" -> true;
          case "not-performed" -> false;
          default ->
              throw new FlowsException(
                  ErrorCode.INVALID_INPUT,
                  "outcome must be performed or not-performed",
                  "outcome",
                  "choose whether the effect was performed");
        };
    Optional<JsonNode> output =
        performed
            ? Optional.of(
                RunsCommand.Resolve.json(ConsoleHandler.given(form, "output").orElse(""), "output"))
            : Optional.empty();
    RunSnapshot after = RunsCommand.Resolve.resolve(journal, before, step, output, actor);
    json.set("run", RunJson.summary(after));
    json.put("stepId", step).put("performed", performed);
    return new Done(
        id,
        "step "
            + step
            + (performed ? " resolved as performed" : " resolved as not performed")
            + "; run "
            + after.status().wire(),
        json);
  }

  /** Answers or declines a call parked for input, as {@code runs answer}; {@code by} the actor. */
  private Done answer(RunRef id, Fields form, String actor, ObjectNode json) {
    String step = required(form, "step", "the parked step's id");
    InputAnswer answer = ConsoleAnswers.read(journal, id, step, form);
    boolean declined = answer instanceof InputAnswer.Decline;
    RunSnapshot after = journal.answerInput(id, step, answer, actor);
    json.set("run", RunJson.summary(after));
    json.put("stepId", step).put("declined", declined);
    after.step(step).ifPresent(st -> json.put("stepStatus", st.status().wire()));
    return new Done(
        id,
        "step "
            + step
            + (declined ? " declined" : " answered")
            + "; the call is sent again with the answer; run "
            + after.status().wire(),
        json);
  }

  private Done signal(RunRef id, Fields form, String actor, ObjectNode json) {
    String name = required(form, "name", "the signal's name, e.g. approve");
    JsonNode payload =
        ConsoleHandler.given(form, "payload")
            .map(p -> EngineSupport.json(p, "payload", "{\"approved\":true}"))
            .orElse(NullNode.getInstance());
    // The key says who sent it; an operator's own key keeps sending idempotent per actor.
    String key =
        actor + "/" + ConsoleHandler.given(form, "key").orElse(UUID.randomUUID().toString());
    SignalSent sent = journal.sendSignal(id, name, payload, Optional.of(key));
    json.put("name", sent.name()).put("seq", sent.seq()).put("deduped", sent.deduped());
    json.put("key", key);
    return new Done(
        id,
        sent.deduped()
            ? "signal " + name + " was sent with this key before; nothing sent"
            : "signal " + name + " #" + sent.seq() + " sent",
        json);
  }

  private Done rerun(RunRef id, String actor, ObjectNode json) {
    Rerun.Again again = Rerun.again(journal, id, Optional.empty());
    RunRef started = admit(again, id, actor);
    json.put("rerunOf", id.value()).put("newRunId", started.value());
    return new Done(
        started, "started run " + started.value() + " (rerun of " + id.value() + ")", json);
  }

  /** Admits the rerun (preflighted, as {@code runs rerun --detach}); a worker runs it. */
  private RunRef admit(Rerun.Again again, RunRef old, String actor) {
    try (FlowsEngine engine = EngineSupport.engine(journal, 1)) {
      String key = "ui-rerun:" + actor + ":" + UUID.randomUUID();
      return engine.start(again.flow(), again.input(), Optional.of(key), Optional.of(old)).runId();
    } catch (PreflightException e) {
      throw new FlowsException(
          e.code(),
          e.problems().stream()
              .map(p -> Database.oneLine(p.getMessage()))
              .collect(Collectors.joining("; ")),
          "rerun of " + old.value(),
          e.problems().getFirst().fix().orElse("run `flows check` on the flow file"));
    }
  }

  private static String required(Fields form, String name, String what) {
    return ConsoleHandler.given(form, name)
        .orElseThrow(
            () ->
                new FlowsException(
                    ErrorCode.INVALID_INPUT, name + " is required", name, "fill in " + what));
  }

  /** The signals sent to {@code run} (view {@code flows.signals}), in the order sent. */
  static ArrayNode signals(Connection c, RunRef run) throws SQLException {
    ArrayNode out = Session.JSON.createArrayNode();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT name, seq, payload::text, dedup_key, sent_at, state, delivered_at,"
                + " delivered_step_id FROM flows.signals WHERE run_id = ? ORDER BY sent_at, name,"
                + " seq")) {
      ps.setString(1, run.value());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ObjectNode s = out.addObject();
          s.put("name", rs.getString(1)).put("seq", rs.getLong(2));
          s.set("payload", EngineSupport.json(rs.getString(3), "payload", "null"));
          s.put("key", rs.getString(4));
          s.put("sentAt", rs.getTimestamp(5).toInstant().toString());
          s.put("state", rs.getString(6));
          Timestamp delivered = rs.getTimestamp(7);
          s.put("deliveredAt", delivered == null ? null : delivered.toInstant().toString());
          s.put("deliveredStep", rs.getString(8));
        }
      }
    }
    return out;
  }
}
