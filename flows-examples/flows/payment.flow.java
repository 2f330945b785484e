import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.McpResult;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Create a customer, then charge them, on the payments server. flows.json declares that server
 * "idempotencyKeys": true: each call carries its idempotency key in _meta and the server answers a
 * repeated key with the original result, so a call whose outcome is unknown after a crash is safely
 * sent again instead of charging twice.
 *
 * <p>Input: {"email": "...", "amountCents": 1999, "currency": "EUR"} (all optional).
 */
public class Payment implements Flow<JsonNode, JsonNode> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("payment").version("1").mcp("payments").build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    String email = input.path("email").asText("grace@example.com");
    long amountCents = input.path("amountCents").asLong(1999);
    String currency = input.path("currency").asText("EUR");

    McpResult customer =
        f.mcp("payments").tool("create_customer").call(Map.of("email", email));
    String customerId = customer.structured().orElseThrow().path("id").asText();

    McpResult charge =
        f.mcp("payments")
            .tool("charge")
            .call(Map.of("customer", customerId, "amountCents", amountCents, "currency", currency));
    JsonNode charged = charge.structured().orElseThrow();

    Map<String, Object> out = new LinkedHashMap<>();
    out.put("customer", customerId);
    out.put("charge", charged.path("id").asText());
    out.put("amountCents", charged.path("amountCents").asLong());
    out.put("currency", charged.path("currency").asText());
    out.put("status", charged.path("status").asText());
    out.put("idempotencyKey", charge.idempotencyKey());
    return f.step("receipt", () -> out);
  }
}
