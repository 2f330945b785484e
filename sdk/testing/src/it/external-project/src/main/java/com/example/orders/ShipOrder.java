package com.example.orders;

import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.time.Duration;
import java.util.Map;

/** Charges an order, waits a day for the warehouse, then books the shipment. */
public class ShipOrder implements Flow<String, String> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("ship-order").version("1").mcp("payments").build();
  }

  @Override
  public String run(Ctx f, String order) {
    String charge =
        f.mcp("payments")
            .tool("charge")
            .call(Map.of("order", order))
            .structured()
            .orElseThrow()
            .path("id")
            .asText();
    f.sleep(Duration.ofDays(1));
    return order + " shipped, paid by " + charge;
  }
}
