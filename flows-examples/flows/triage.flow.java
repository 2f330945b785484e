import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Support-ticket triage across two MCP servers: the tickets server (stdio) classifies the message
 * and opens a ticket; the payments server (Streamable HTTP, bearer token from PAYMENTS_TOKEN) finds
 * the customer and, for a billing complaint, credits a goodwill amount. A memoized step writes the
 * reply.
 *
 * <p>Input: {"email": "...", "message": "...", "subject": "..."} (all optional).
 */
public class Triage implements Flow<JsonNode, JsonNode> {
  static final long GOODWILL_CENTS = 500;

  @Override
  public FlowHeader header() {
    return FlowHeader.named("triage").version("1").mcp("tickets", "payments").build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    String email = input.path("email").asText("ada@example.com");
    String message =
        input.path("message").asText("I was charged twice for my subscription, please refund");
    String subject = input.path("subject").asText("Support request from " + email);

    JsonNode verdict =
        f.mcp("tickets").tool("classify").call(Map.of("text", message)).structured().orElseThrow();
    String category = verdict.path("category").asText();
    String priority = verdict.path("priority").asText();

    JsonNode customer =
        f.mcp("payments")
            .tool("create_customer")
            .call(Map.of("email", email))
            .structured()
            .orElseThrow();
    String customerId = customer.path("id").asText();

    String creditId = "";
    if (category.equals("billing")) {
      creditId =
          f.mcp("payments")
              .tool("credit")
              .call(
                  Map.of(
                      "customer", customerId,
                      "amountCents", GOODWILL_CENTS,
                      "currency", "EUR",
                      "reason", "goodwill credit for a billing ticket"))
              .structured()
              .orElseThrow()
              .path("id")
              .asText();
    }

    JsonNode ticket =
        f.mcp("tickets")
            .tool("create_ticket")
            .call(
                Map.of(
                    "title", subject,
                    "body", message,
                    "priority", priority,
                    "category", category,
                    "customer", customerId))
            .structured()
            .orElseThrow();

    String ticketId = ticket.path("id").asText();
    String credited = creditId;
    return f.step(
        "reply",
        () -> {
          Map<String, Object> out = new LinkedHashMap<>();
          out.put("ticket", ticketId);
          out.put("customer", customerId);
          out.put("category", category);
          out.put("priority", priority);
          if (!credited.isEmpty()) {
            out.put("credit", credited);
          }
          out.put(
              "reply",
              "We opened ticket "
                  + ticketId
                  + " ("
                  + category
                  + ", "
                  + priority
                  + ")"
                  + (credited.isEmpty() ? "." : " and credited 5.00 EUR to your account."));
          return out;
        });
  }
}
