package dev.flows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.McpResult;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The examples' approval flow (flows-examples/flows/approval.flow.java, a single-file flow this
 * module cannot depend on) as a class, unchanged: above the threshold it waits for the signal
 * "approve" for at most 24 hours, then charges or cancels.
 */
public class Approval implements Flow<JsonNode, JsonNode> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("approval").version("1").mcp("payments").build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    String email = input.path("email").asText("grace@example.com");
    long amountCents = input.path("amountCents").asLong(25000);
    String currency = input.path("currency").asText("EUR");
    long threshold = input.path("thresholdCents").asLong(10000);
    Duration timeout = Duration.parse(input.path("approvalTimeout").asText("PT24H"));
    ObjectNode out = JsonNodeFactory.instance.objectNode().put("amountCents", amountCents);

    if (amountCents > threshold) {
      Optional<JsonNode> decision = f.awaitSignal("approve", timeout);
      if (decision.isEmpty()) {
        return out.put("status", "cancelled").put("reason", "no approval within " + timeout);
      }
      if (!decision.get().path("approved").asBoolean(false)) {
        return out.put("status", "cancelled")
            .put("reason", "rejected by " + decision.get().path("by").asText("?"));
      }
      out.put("approvedBy", decision.get().path("by").asText("?"));
    }

    McpResult customer = f.mcp("payments").tool("create_customer").call(Map.of("email", email));
    String customerId = customer.structured().orElseThrow().path("id").asText();
    McpResult charge =
        f.mcp("payments")
            .tool("charge")
            .call(Map.of("customer", customerId, "amountCents", amountCents, "currency", currency));
    return out.put("status", "charged")
        .put("charge", charge.structured().orElseThrow().path("id").asText());
  }
}
