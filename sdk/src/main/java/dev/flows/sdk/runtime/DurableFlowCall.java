package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JavaType;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Pending;
import dev.flows.sdk.RetryPolicy;
import java.time.Duration;

/**
 * {@code f.flow(...)}: an immutable handle on a child flow with its policy; each call takes its own
 * position, and each policy method answers a new handle.
 */
record DurableFlowCall<I, O>(
    DurableCtx ctx, ChildFlows.Target target, CallPolicy policy, JavaType output)
    implements Ctx.FlowCall<I, O> {
  @Override
  public O call(I input) {
    return PublicError.guard(
        () -> FlowTypes.<O>read(ctx.callFlow(target, input, policy), output, what()));
  }

  @Override
  public Pending<O> callAsync(I input) {
    return PublicError.guard(
        () -> ctx.startFlow(target, input, policy, j -> FlowTypes.<O>read(j, output, what())));
  }

  private String what() {
    return "the output of flow " + target.call();
  }

  @Override
  public Ctx.FlowCall<I, O> timeout(Duration timeout) {
    return new DurableFlowCall<>(ctx, target, policy.withTimeout(timeout), output);
  }

  @Override
  public Ctx.FlowCall<I, O> retry(RetryPolicy retry) {
    return new DurableFlowCall<>(ctx, target, policy.withRetry(retry), output);
  }
}
