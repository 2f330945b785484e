package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Pending;
import dev.flows.sdk.RetryPolicy;
import java.time.Duration;

/**
 * {@code f.flow(...)}: an immutable handle on a child flow with its policy; each call takes its own
 * position, and each policy method answers a new handle.
 */
record DurableFlowCall(DurableCtx ctx, ChildFlows.Target target, CallPolicy policy)
    implements Ctx.FlowCall {
  @Override
  public JsonNode call(Object input) {
    return ctx.callFlow(target, input, policy);
  }

  @Override
  public Pending<JsonNode> startAsync(Object input) {
    return ctx.startFlow(target, input, policy);
  }

  @Override
  public Ctx.FlowCall timeout(Duration timeout) {
    return new DurableFlowCall(ctx, target, policy.withTimeout(timeout));
  }

  @Override
  public Ctx.FlowCall retry(RetryPolicy retry) {
    return new DurableFlowCall(ctx, target, policy.withRetry(retry));
  }
}
