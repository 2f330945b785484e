package dev.flows.testing;

import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.util.Map;

/** Charges an order once on the payments server and answers the charge's id. */
public class Charge implements Flow<String, String> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("charge").version("1").mcp("payments").build();
  }

  @Override
  public String run(Ctx f, String order) {
    return f.mcp("payments")
        .tool("charge")
        .call(Map.of("order", order, "amountCents", 4200))
        .structured()
        .orElseThrow()
        .path("id")
        .asText();
  }
}
