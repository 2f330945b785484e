import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.InputReply;
import java.util.Map;

/**
 * A refund the payments server performs only once a person confirms the amount: its `refund` tool
 * answers 2026-07-28 `input_required` with a form asking to repeat the amount. The call's step
 * parks (and so does this body) until someone answers, from the shell
 * (`flows runs answer CALL_RUN call '{"confirmAmountCents": 1200}'`, or `--decline`) or from an
 * application (`Flows.answer`); then the call is re-issued with the answer, same idempotency key,
 * and refunds once. Amounts up to `autoConfirmCents` are confirmed by the flow itself (`onInput`),
 * journaled, so a replay never confirms again.
 *
 * <p>Input: {"email": "...", "amountCents": 1200, "currency": "EUR", "autoConfirmCents": 0}.
 */
public class ConfirmedRefund implements Flow<JsonNode, JsonNode> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("confirmed_refund").version("1").mcp("payments").build();
  }

  @Override
  public JsonNode run(Ctx f, JsonNode input) {
    long amountCents = input.path("amountCents").asLong(1200);
    String customer =
        f.mcp("payments")
            .tool("create_customer")
            .call(Map.of("email", input.path("email").asText("hal@example.com")))
            .structured()
            .orElseThrow()
            .path("id")
            .asText();
    Ctx.McpTool refund = f.mcp("payments").tool("refund");
    if (amountCents <= input.path("autoConfirmCents").asLong(0)) {
      refund = refund.onInput(request -> InputReply.accept(Map.of("confirmAmountCents", amountCents)));
    }
    JsonNode done =
        refund
            .call(
                Map.of(
                    "customer", customer,
                    "amountCents", amountCents,
                    "currency", input.path("currency").asText("EUR"),
                    "reason", "refund"))
            .structured()
            .orElseThrow();
    return JsonNodeFactory.instance.objectNode()
        .put("refund", done.path("id").asText())
        .put("status", done.path("status").asText())
        .put("amountCents", amountCents);
  }
}
