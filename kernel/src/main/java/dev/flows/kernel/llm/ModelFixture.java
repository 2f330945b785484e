package dev.flows.kernel.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A run's model answers as a script a scripted model replays ({@code flows runs export-fixture},
 * read by {@code ScriptedModel.fromFixture} of {@code worker/mcp-testkit}, which owns the form):
 * {@code {"run", "turns":[{"model", "text", "inputTokens", "outputTokens"} | {"model",
 * "toolCalls":[{"id","name","arguments"}], "inputTokens", "outputTokens"} | {"model",
 * "refused"}]}}, one turn per {@code llm} receipt of the run and its children, in journal order.
 * {@code arguments} stays the model's JSON text.
 */
public final class ModelFixture {
  /** How deep children are followed, as {@code runs show} nests them. */
  public static final int MAX_DEPTH = 16;

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String CONTENT_FILTER = "content_filter";

  private ModelFixture() {}

  public static ObjectNode of(Journal journal, RunRef run) {
    List<JournalRecord> entries = new ArrayList<>();
    collect(journal, run, 0, entries);
    entries.sort(Comparator.comparingLong(JournalRecord::seq));
    ObjectNode script = JSON.objectNode().put("run", run.value());
    ArrayNode turns = script.putArray("turns");
    LlmReceipts.of(entries).forEach(r -> turns.add(turn(r)));
    return script;
  }

  /** The entries of {@code run} and its children, as {@code runs show} follows them. */
  public static void collect(Journal journal, RunRef run, int depth, List<JournalRecord> into) {
    into.addAll(journal.entries(run));
    if (depth < MAX_DEPTH) {
      journal.children(run).forEach(c -> collect(journal, c, depth + 1, into));
    }
  }

  private static ObjectNode turn(JsonNode receipt) {
    LlmAnswer a = LlmReceipt.answer(receipt);
    ObjectNode t = JSON.objectNode().put("model", receipt.path("model").asText());
    if (!a.toolCalls().isEmpty()) {
      ArrayNode calls = t.putArray("toolCalls");
      for (LlmToolCall c : a.toolCalls()) {
        calls.addObject().put("id", c.id()).put("name", c.name()).put("arguments", c.arguments());
      }
    } else if (CONTENT_FILTER.equals(a.finishReason())) {
      return t.put("refused", a.text());
    } else {
      t.put("text", a.text());
    }
    return t.put("inputTokens", a.usage().inputTokens())
        .put("outputTokens", a.usage().outputTokens());
  }
}
