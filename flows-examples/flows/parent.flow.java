import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.sdk.ChildFailedException;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.util.Map;

/**
 * A complaint handled by a parent flow that starts refund.flow.java (the file beside it) as a child
 * run: the child has its own body and journal, the parent waits for it without holding a thread,
 * cancelling the parent cancels the child, and a refund the child refuses reaches the parent as a
 * ChildFailedException. The parent declares payments too: a child's servers come from the parent's
 * preflight.
 *
 * <p>Input: {"email": "...", "amountCents": 1200} (optional).
 */
public class Parent implements Flow<JsonNode, JsonNode> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("parent").version("1").mcp("payments").build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    String email = input.path("email").asText("lin@example.com");
    long amountCents = input.path("amountCents").asLong(1200);
    String customer =
        f.mcp("payments")
            .tool("create_customer")
            .call(Map.of("email", email))
            .structured()
            .orElseThrow()
            .path("id")
            .asText();
    ObjectNode out = JsonNodeFactory.instance.objectNode().put("customer", customer);
    try {
      JsonNode refund =
          f.flow("refund").call(Map.of("customer", customer, "amountCents", amountCents));
      out.put("status", "refunded");
      out.set("refund", refund);
    } catch (ChildFailedException e) {
      out.put("status", "refund_refused").put("reason", e.diagnostic().path("message").asText());
    }
    return out;
  }
}
