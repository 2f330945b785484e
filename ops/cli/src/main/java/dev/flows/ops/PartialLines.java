package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LiveText;
import dev.flows.kernel.journal.RunRef;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The live text of a run's running model turns ({@link LiveText}), as {@code runs watch} prints it:
 * in text mode what a turn's text grew by since it was last printed, on its own lines prefixed by
 * the step's label ({@code label > text}); with {@code --json} one {@code {"type":"llm.partial",
 * "runId", "stepId", "text"}} line each time a turn's text changed, holding its whole text so far.
 * Never journaled: a turn's final message is in its receipt.
 */
final class PartialLines {
  static final String TYPE = "llm.partial";
  private final Map<String, String> printed = new HashMap<>();

  /** Prints the turns of {@code run} whose text changed since the last call. */
  void printNew(
      Session session, Journal journal, RunRef run, String prefix, UnaryOperator<String> label) {
    for (LiveText.Partial p : journal.liveText().of(run)) {
      String key = run.value() + "/" + p.stepId();
      String before = printed.getOrDefault(key, "");
      if (p.text().equals(before)) {
        continue;
      }
      printed.put(key, p.text());
      ObjectNode json = session.object().put("type", TYPE);
      json.put("runId", run.value()).put("stepId", p.stepId()).put("text", p.text());
      String grown = p.text().startsWith(before) ? p.text().substring(before.length()) : p.text();
      session.event(json, human(prefix + label.apply(p.stepId()) + " > ", grown));
    }
  }

  /** {@code text}'s lines, each behind {@code lead}. */
  static String human(String lead, String text) {
    return lead + String.join("\n" + lead, text.strip().split("\n", -1));
  }
}
