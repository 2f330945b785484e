import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.Tools;

/**
 * A support agent: a model reads the ticket and decides which tools to call, the tickets server's
 * (classify, open a ticket) and the payments server's (find the customer, refund). Each model turn
 * and each tool call is journaled; a refund waits for a person's approval before it is sent
 * (`flows runs answer RUN call '{"approve":true}'`, or '{"deny":"why"}', or '{"args":{...}}' to
 * send other arguments), and the payments server then asks to confirm the amount itself.
 *
 * <p>Input: {"email": "...", "message": "..."} (both optional). Offline, the model is the scripted
 * one of flows-examples/models/agent.json (`flows demo --agent`).
 */
public class Agent implements Flow<JsonNode, JsonNode> {
  static final int MAX_TURNS = 6;

  @Override
  public FlowHeader header() {
    return FlowHeader.named("agent")
        .version("1")
        .mcp("tickets", "payments")
        .models("support")
        .build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    String email = input.path("email").asText("ada@example.com");
    String message =
        input.path("message").asText("I was charged twice for my subscription, please refund");
    String answer =
        f.agent("support")
            .instructions(
                "You are a support agent. Classify the customer's message, find the customer by"
                    + " email, refund a double charge (amounts in cents), open a ticket, then"
                    + " answer the customer in one sentence.")
            .tools(
                Tools.of("tickets", "classify", "create_ticket"),
                Tools.of("payments", "create_customer", "refund"))
            .approve("payments", "refund")
            .maxTurns(MAX_TURNS)
            .run("From " + email + ": " + message);
    return JsonNodeFactory.instance.objectNode().put("email", email).put("answer", answer);
  }
}
