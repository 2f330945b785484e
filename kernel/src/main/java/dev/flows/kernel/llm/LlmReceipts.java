package dev.flows.kernel.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code llm} receipts a run's journal holds, in journal order: the confirmed effects of its
 * {@code llm} steps and of its bodies' {@code f.llm} calls (agent turns included). A refusal
 * journaled by {@code f.llm} holds no receipt and is not one. Each effect counts once.
 */
public final class LlmReceipts {
  private LlmReceipts() {}

  public static List<JsonNode> of(List<JournalRecord> entries) {
    List<JsonNode> receipts = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    for (JournalRecord rec : entries) {
      if (rec.entry() instanceof JournalEntry.EffectConfirmed e
          && e.output().isPresent()
          && isReceipt(e.output().get())
          && keys.add(e.runId().value() + "\n" + e.stepId() + "\n" + e.surfacePath())) {
        receipts.add(e.output().get());
      }
    }
    return receipts;
  }

  public static boolean isReceipt(JsonNode output) {
    return output.isObject()
        && LlmReceipt.TYPE.equals(output.path("type").asText())
        && output.has("usage");
  }

  /** The usage of {@code receipts} together, and how many model calls they are. */
  public static Total total(List<JsonNode> receipts) {
    long in = 0;
    long out = 0;
    for (JsonNode r : receipts) {
      LlmUsage u = LlmReceipt.answer(r).usage();
      in += u.inputTokens();
      out += u.outputTokens();
    }
    return new Total(in, out, receipts.size());
  }

  /** Tokens in and out over {@code calls} model calls. */
  public record Total(long inputTokens, long outputTokens, int calls) {}
}
