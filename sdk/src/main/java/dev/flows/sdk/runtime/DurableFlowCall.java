package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Pending;

/** {@code f.flow(...)}: an immutable handle on a child flow; each call takes its own position. */
record DurableFlowCall(DurableCtx ctx, ChildFlows.Target target) implements Ctx.FlowCall {
  @Override
  public JsonNode call(Object input) {
    return ctx.callFlow(target, input);
  }

  @Override
  public Pending<JsonNode> startAsync(Object input) {
    return ctx.startFlow(target, input);
  }
}
