package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.LlmCall;
import dev.flows.sdk.LlmResult;
import dev.flows.sdk.Pending;
import dev.flows.sdk.RunId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@link Ctx} a flow body is handed: the attempt's {@link DurableCtx}, every call converting
 * what the engine throws to the public root ({@link PublicError}). The handles it answers convert
 * the same way in their own calls ({@link PolicyHandles}, {@link DurableFlowCall}, {@link
 * ChildPending}).
 */
record AuthorCtx(DurableCtx ctx) implements Ctx {
  @Override
  public RunId runId() {
    return ctx.runId();
  }

  @Override
  public JsonNode input() {
    return ctx.input();
  }

  @Override
  public McpServer mcp(String server) {
    return PublicError.guard(() -> ctx.mcp(server));
  }

  @Override
  public JsonNode step(String name, StepBody<?> body) {
    return PublicError.guard(() -> ctx.step(name, body));
  }

  @Override
  public <T> T step(String name, Class<T> type, StepBody<T> body) {
    return PublicError.guard(() -> ctx.step(name, type, body));
  }

  @Override
  public StepCall step(String name) {
    return ctx.step(name);
  }

  @Override
  public Command command(String... argv) {
    return ctx.command(argv);
  }

  @Override
  public Command shell(String command) {
    return ctx.shell(command);
  }

  @Override
  public List<Object> all(Pending<?>... pending) {
    return PublicError.guard(() -> ctx.all(pending));
  }

  @Override
  public <T> List<T> all(List<? extends Pending<T>> pending) {
    return PublicError.guard(() -> ctx.all(pending));
  }

  @Override
  public Pending<?> any(Pending<?>... pending) {
    return PublicError.guard(() -> ctx.any(pending));
  }

  @Override
  public <T> Pending<T> any(List<? extends Pending<T>> pending) {
    return PublicError.guard(() -> ctx.any(pending));
  }

  @Override
  public FlowCall<Object, JsonNode> flow(String name) {
    return PublicError.guard(() -> ctx.flow(name));
  }

  @Override
  public <I, O> FlowCall<I, O> flow(Class<? extends Flow<I, O>> type) {
    return PublicError.guard(() -> ctx.flow(type));
  }

  @Override
  public void sleep(Duration duration) {
    PublicError.guard(() -> ctx.sleep(duration));
  }

  @Override
  public void sleepUntil(Instant until) {
    PublicError.guard(() -> ctx.sleepUntil(until));
  }

  @Override
  public Optional<JsonNode> awaitSignal(String name, Duration timeout) {
    return PublicError.guard(() -> ctx.awaitSignal(name, timeout));
  }

  @Override
  public <T> Optional<T> awaitSignal(String name, Class<T> type, Duration timeout) {
    return PublicError.guard(() -> ctx.awaitSignal(name, type, timeout));
  }

  @Override
  public Instant now() {
    return PublicError.guard(ctx::now);
  }

  @Override
  public UUID randomUUID() {
    return PublicError.guard(ctx::randomUUID);
  }

  @Override
  public double random() {
    return PublicError.guard(ctx::random);
  }

  @Override
  public boolean patched(String id) {
    return PublicError.guard(() -> ctx.patched(id));
  }

  @Override
  public void deprecatePatch(String id) {
    PublicError.guard(() -> ctx.deprecatePatch(id));
  }

  @Override
  public dev.flows.sdk.AgentCall<String> agent(String model) {
    return PublicError.guard(() -> ctx.agent(model));
  }

  @Override
  public LlmCall<String> llm(String model) {
    return new GuardedLlmCall<>(PublicError.guard(() -> ctx.llm(model)));
  }

  /** A model call whose refusals and failures reach the body as {@link PublicError}s. */
  private record GuardedLlmCall<T>(LlmCall<T> inner) implements LlmCall<T> {
    @Override
    public LlmCall<T> system(String text) {
      return new GuardedLlmCall<>(PublicError.guard(() -> inner.system(text)));
    }

    @Override
    public LlmCall<T> user(String text) {
      return new GuardedLlmCall<>(PublicError.guard(() -> inner.user(text)));
    }

    @Override
    public <R> LlmCall<R> responseFormat(Class<R> type) {
      return new GuardedLlmCall<>(PublicError.guard(() -> inner.responseFormat(type)));
    }

    @Override
    public LlmCall<T> budget(dev.flows.sdk.Budget budget) {
      return new GuardedLlmCall<>(PublicError.guard(() -> inner.budget(budget)));
    }

    @Override
    public LlmResult<T> call() {
      return PublicError.guard(inner::call);
    }
  }
}
