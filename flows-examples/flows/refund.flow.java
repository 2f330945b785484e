import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.util.Map;

/**
 * A refund as a flow of its own, started by parent.flow.java as a child run: credits the amount to
 * the customer on the payments server. A refund above 500.00 is refused (the body fails), which the
 * parent sees as a ChildFailedException with this flow's diagnostic.
 *
 * <p>Input: {"customer": "cus_...", "amountCents": 1200, "currency": "EUR"}.
 */
public class Refund implements Flow<JsonNode, JsonNode> {
  static final long MAX_CENTS = 50_000;

  @Override
  public FlowHeader header() {
    return FlowHeader.named("refund").version("1").mcp("payments").build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    long amountCents = input.path("amountCents").asLong();
    if (amountCents <= 0 || amountCents > MAX_CENTS) {
      throw new IllegalArgumentException(
          "a refund of " + amountCents + " cents is outside 1.." + MAX_CENTS + "; it needs a person");
    }
    JsonNode credit =
        f.mcp("payments")
            .tool("credit")
            .call(
                Map.of(
                    "customer", input.path("customer").asText(),
                    "amountCents", amountCents,
                    "currency", input.path("currency").asText("EUR"),
                    "reason", "refund"))
            .structured()
            .orElseThrow();
    return JsonNodeFactory.instance.objectNode()
        .put("credit", credit.path("id").asText())
        .put("amountCents", amountCents);
  }
}
