package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.MemoVerb;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.lifecycle.StepStatus;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a suspended flow body waits for, read from its memos: the last position that journaled a
 * timer ({@code f.sleep}) or a signal wait ({@code f.awaitSignal}) with no outcome yet. Shown by
 * {@code runs show} as {@code waitsFor}: {@code {"kind":"timer","until"}} or {@code
 * {"kind":"signal","signal","until"}} (the wait's timeout).
 */
final class BodyWait {
  private static final Pattern MEMO = Pattern.compile("/memo/(\\d+)(/outcome)?");

  private BodyWait() {}

  static Optional<ObjectNode> of(StepSnapshot step, List<JournalRecord> entries) {
    if (step.status() != StepStatus.READY
        || step.lastReason().filter(r -> r == CompletionReason.SUSPENDED).isEmpty()) {
      return Optional.empty();
    }
    int last = 0;
    JsonNode lastMemo = null;
    Set<Integer> decided = new HashSet<>();
    for (JournalRecord r : entries) {
      if (r.entry() instanceof JournalEntry.EffectConfirmed c
          && c.stepId().equals(step.stepId())
          && c.output().isPresent()) {
        Matcher m = MEMO.matcher(c.surfacePath());
        if (!m.matches()) {
          continue;
        }
        int pos = Integer.parseInt(m.group(1));
        if (m.group(2) != null) {
          decided.add(pos);
        } else if (pos > last) {
          last = pos;
          lastMemo = c.output().get();
        }
      }
    }
    if (lastMemo == null || decided.contains(last)) {
      return Optional.empty();
    }
    ObjectNode w = Session.JSON.createObjectNode();
    switch (MemoVerb.of(lastMemo).orElse(MemoVerb.STEP)) {
      case SLEEP -> w.put("kind", "timer").put("until", lastMemo.path("until").asText());
      case AWAIT_SIGNAL ->
          w.put("kind", "signal")
              .put("signal", lastMemo.path("signal").asText())
              .put("until", lastMemo.path("until").asText());
      case STEP, FLOW, ANY, ON_INPUT, NOW, RANDOM_UUID, RANDOM -> {
        return Optional.empty();
      }
    }
    return Optional.of(w);
  }

  /** What {@code w} shows for run {@code runId}: a signal wait names the command that sends it. */
  static String text(JsonNode w, String runId) {
    return w.path("kind").asText().equals("timer")
        ? "a timer due " + w.path("until").asText()
        : "signal '"
            + w.path("signal").asText()
            + "' (times out "
            + w.path("until").asText()
            + "; `flows runs signal "
            + runId
            + " "
            + w.path("signal").asText()
            + " [PAYLOAD_JSON]` sends it)";
  }
}
