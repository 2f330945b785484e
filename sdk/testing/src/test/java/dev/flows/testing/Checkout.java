package dev.flows.testing;

import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;

/** Runs {@link Charge} as a child flow (declaring the child's server) and answers its charge id. */
public class Checkout implements Flow<String, String> {
  @Override
  public FlowHeader header() {
    return FlowHeader.named("checkout").version("1").mcp("payments").build();
  }

  @Override
  public String run(Ctx f, String order) {
    return "paid " + f.flow(Charge.class).call(order);
  }
}
