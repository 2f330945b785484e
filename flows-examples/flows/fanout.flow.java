import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.McpResult;
import dev.flows.sdk.Pending;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Triage of a batch of support messages in parallel: every message is sent to the tickets server's
 * classify tool at once (callAsync: each call takes its position and is in flight when issued),
 * then f.all waits for the ten answers, in the order the messages came. A crash in the middle
 * reuses every answer already journaled.
 *
 * <p>Input: {"messages": ["...", ...]} (optional: ten sample messages).
 */
public class FanoutTriage implements Flow<JsonNode, JsonNode> {
  static final List<String> SAMPLE =
      List.of(
          "I was charged twice for my subscription, please refund",
          "The export button crashes the app",
          "How do I reset my password?",
          "It would be great to have a dark mode",
          "Your invoice shows the wrong VAT number",
          "Login fails with error 500 since this morning",
          "Please delete my account",
          "Can you add CSV import?",
          "Where can I find your office address?",
          "The payment page times out, urgent!");

  @Override
  public FlowHeader header() {
    return FlowHeader.named("fanout").version("1").mcp("tickets").build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    List<String> messages = new ArrayList<>();
    input.path("messages").forEach(m -> messages.add(m.asText()));
    if (messages.isEmpty()) {
      messages.addAll(SAMPLE);
    }
    List<Pending<McpResult>> verdicts = new ArrayList<>();
    for (String m : messages) {
      verdicts.add(f.mcp("tickets").tool("classify").callAsync(Map.of("text", m)));
    }
    List<McpResult> answers = f.all(verdicts);

    ObjectNode out = JsonNodeFactory.instance.objectNode();
    ArrayNode tickets = out.putArray("tickets");
    ObjectNode byCategory = out.putObject("byCategory");
    for (int i = 0; i < messages.size(); i++) {
      JsonNode v = answers.get(i).structured().orElseThrow();
      String category = v.path("category").asText();
      tickets
          .addObject()
          .put("message", messages.get(i))
          .put("category", category)
          .put("priority", v.path("priority").asText());
      byCategory.put(category, byCategory.path(category).asInt(0) + 1);
    }
    return out;
  }
}
