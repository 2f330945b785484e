package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.spec.Backoff;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.Ctx.StepBody;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;

/**
 * {@code f.step}: the body runs in-process and its result is journaled at {@code /memo/<pos>} as
 * {@code {name, value}}, written behind the body ({@link MemoWriter}). With a policy ({@code
 * f.step(name).retry(p).timeout(d)}) each failed attempt is journaled at {@code
 * /memo/<pos>/attempt/<n>} ({@code {name, attempt, at, error, retryAt?, policy?}}), so a replay
 * after a crash goes on with the attempts left and waits out the backoff journaled; a short backoff
 * is waited in memory, a longer one (past {@code SdkConfig.suspendAfter}) gives the attempt back
 * until it is due. The success memo adds {@code attempts} and {@code policy}.
 */
final class StepCalls implements PolicyHandles.StepRunner {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final BodyMemos memos;
  private final String flow;
  private final String jitterKey;
  private final InstantSource clock;
  private final Duration inMemory;
  private final IntSupplier nextPosition;
  private final UnaryOperator<SuspendSignal> suspend;
  private final PayloadLimits limits;

  StepCalls(
      BodyMemos memos,
      String flow,
      String jitterKey,
      InstantSource clock,
      Duration inMemory,
      IntSupplier nextPosition,
      UnaryOperator<SuspendSignal> suspend,
      PayloadLimits limits) {
    this.memos = memos;
    this.limits = limits;
    this.flow = flow;
    this.jitterKey = jitterKey;
    this.clock = clock;
    this.inMemory = inMemory;
    this.nextPosition = nextPosition;
    this.suspend = suspend;
  }

  @Override
  public JsonNode run(String name, CallPolicy policy, StepBody<?> body) {
    int pos = nextPosition.getAsInt();
    String call = "f.step(\"" + name + "\")";
    Optional<JsonNode> journaled = memos.step(pos, name, call);
    if (journaled.isPresent()) {
      return journaled.get().path("value");
    }
    if (policy.isDefault()) {
      Object value;
      try {
        value = body.get();
      } catch (Exception ex) {
        interruptedEndsTheAttempt(ex, call);
        if (ex instanceof RuntimeException re) {
          throw re;
        }
        throw threw(name, ex);
      }
      return memos.keepBehind(pos, bounded(call, memo(name, value))).path("value");
    }
    return withPolicy(pos, name, call, policy, body);
  }

  @Override
  public <T> T run(String name, CallPolicy policy, Class<T> type, StepBody<T> body) {
    JsonNode v = run(name, policy, (StepBody<?>) body);
    try {
      return DurableCtx.MAPPER.treeToValue(v, type);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new FlowsException(
          ErrorCode.FLOW_FAILED,
          "journaled value of f.step(\"" + name + "\") does not convert to " + type.getName(),
          "flow " + flow,
          "keep the step's type stable across versions");
    }
  }

  private JsonNode withPolicy(
      int pos, String name, String call, CallPolicy policy, StepBody<?> body) {
    RetryPolicy p = policy.retry().orElse(RetryPolicy.none());
    List<JsonNode> failed = memos.attempts(pos);
    for (JsonNode f : failed) {
      if (!f.path("name").asText().equals(name)) {
        throw memos.refuse(pos, f, call);
      }
    }
    int attempt = failed.size();
    if (attempt > 0) {
      JsonNode last = failed.getLast();
      if (!last.has("retryAt")) {
        // A replay of a step whose last failure was final answers that failure again.
        throw finalFailure(name, p, last, null);
      }
      waitUntil(Instant.parse(last.path("retryAt").asText()), call);
    }
    while (true) {
      attempt++;
      Exception failure;
      try {
        ObjectNode memo = bounded(call, memo(name, once(name, policy.timeout(), body)));
        memo.put("attempts", attempt);
        memo.set("policy", json(policy));
        return memos.keepBehind(pos, memo).path("value");
      } catch (Exception ex) {
        failure = ex;
      }
      interruptedEndsTheAttempt(failure, call);
      String code = codeOf(failure);
      boolean retried = attempt < p.maxAttempts() && p.retries(code, failure);
      ObjectNode record = JSON.objectNode().put("name", name).put("attempt", attempt);
      record.put("at", clock.instant().toString());
      ObjectNode error = record.putObject("error");
      if (!code.isEmpty()) {
        error.put("code", code);
      }
      error.put("exception", failure.getClass().getName());
      error.put("message", String.valueOf(failure.getMessage()));
      Optional<Instant> retryAt = Optional.empty();
      if (retried) {
        long delay = Backoff.delayMs(Lowering.backoff(p), attempt, jitterKey + "/memo/" + pos);
        retryAt = Optional.of(clock.instant().plusMillis(delay));
        record.put("retryAt", retryAt.get().toString());
      }
      if (attempt == 1) {
        record.set("policy", json(policy));
      }
      memos.keepAttempt(pos, attempt, record);
      if (retryAt.isEmpty()) {
        throw finalFailure(name, p, record, failure);
      }
      waitUntil(retryAt.get(), call);
    }
  }

  /** One attempt of the body, on a thread of its own when it has a timeout. */
  /** The refusal code of a step body's failure, engine's or public; empty when it has none. */
  private static String codeOf(Exception failure) {
    return switch (failure) {
      case FlowsException fe -> fe.code().wire();
      case FlowsError fe -> fe.code();
      default -> "";
    };
  }

  private Object once(String name, Optional<Duration> timeout, StepBody<?> body) throws Exception {
    if (timeout.isEmpty()) {
      return body.get();
    }
    CompletableFuture<Object> result = new CompletableFuture<>();
    Thread t =
        Thread.ofVirtual()
            .name("flows-step-" + name)
            .start(
                () -> {
                  try {
                    result.complete(body.get());
                  } catch (Throwable x) {
                    result.completeExceptionally(x);
                  }
                });
    try {
      return result.get(timeout.get().toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // A body that ignores the interrupt runs on, but its result is never used.
      t.interrupt();
      throw new FlowsException(
          ErrorCode.TIMEOUT,
          "f.step(\"" + name + "\") took longer than its timeout of " + timeout.get(),
          "flow " + flow,
          "make the step faster or give it a longer timeout");
    } catch (InterruptedException e) {
      t.interrupt();
      Thread.currentThread().interrupt();
      throw interrupted("f.step(\"" + name + "\")");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception x) {
        throw x;
      }
      throw (Error) e.getCause();
    }
  }

  /** Waits for a retry due at {@code at}: in memory when it is near, else suspended until then. */
  private void waitUntil(Instant at, String call) {
    Duration left = Duration.between(clock.instant(), at);
    if (!left.isPositive()) {
      return;
    }
    if (left.compareTo(inMemory) > 0) {
      throw suspend.apply(
          new SuspendSignal(
              StepOutcome.Suspended.timer(left), "a retry of " + call + " due " + at));
    }
    try {
      Thread.sleep(left);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted(call);
    }
  }

  /**
   * The failure a step ends with: {@code retries_exhausted} once a policy of several attempts ran
   * out, else the failure itself ({@code cause}, or as journaled in {@code last} on replay).
   */
  private FlowsException finalFailure(String name, RetryPolicy p, JsonNode last, Exception cause) {
    int attempts = last.path("attempt").asInt();
    JsonNode error = last.path("error");
    String what =
        error.path("code").asText(error.path("exception").asText())
            + ": "
            + error.path("message").asText();
    if (p.maxAttempts() > 1 && attempts >= p.maxAttempts()) {
      return new FlowsException(
          ErrorCode.RETRIES_EXHAUSTED,
          "f.step(\"" + name + "\") failed all " + attempts + " attempts; the last: " + what,
          "flow " + flow,
          "see the step's attempts (`flows runs show`): fix the cause or allow more attempts",
          false,
          cause);
    }
    if (cause instanceof FlowsException fe) {
      return fe;
    }
    if (cause instanceof RuntimeException re) {
      throw re;
    }
    if (cause != null) {
      return threw(name, cause);
    }
    return new FlowsException(
        ErrorCode.fromWire(error.path("code").asText()).orElse(ErrorCode.FLOW_FAILED),
        "f.step(\"" + name + "\") failed: " + what,
        "flow " + flow,
        "handle the exception in the step body");
  }

  private FlowsException threw(String name, Exception ex) {
    return new FlowsException(
        ErrorCode.FLOW_FAILED,
        "f.step(\"" + name + "\") threw " + ex,
        "flow " + flow,
        "handle the exception in the step body",
        false,
        ex);
  }

  /**
   * A body interrupted (its worker drains past the stop grace, or its lease was lost) ends the
   * attempt, never the step: the interrupt is kept so the runner completes nothing final, and the
   * run is re-driven by the journal.
   */
  private static void interruptedEndsTheAttempt(Exception failure, String call) {
    if (failure instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
      Thread.currentThread().interrupt();
      throw interrupted(call);
    }
  }

  private static FlowsException interrupted(String call) {
    return new FlowsException(
        ErrorCode.LEASE_CONFLICT, "attempt interrupted", call, "the journal re-drives the run");
  }

  /**
   * Refuses {@code payload_too_large} a step value past the worker's {@code maxStepOutputBytes}:
   * the body sees it as the step's failure, and nothing of the value is journaled.
   */
  private ObjectNode bounded(String call, ObjectNode memo) {
    limits.requireStepOutput(memo.path("value"), "flow " + flow + " " + call);
    return memo;
  }

  private static ObjectNode memo(String name, Object value) {
    JsonNode v = DurableCtx.MAPPER.valueToTree(value);
    ObjectNode memo = JSON.objectNode().put("name", name);
    memo.set("value", v == null ? JSON.nullNode() : v);
    return memo;
  }

  /** A policy as journaled and shown: {@code {timeoutMs?, retry?: {maxAttempts, ...}}}. */
  static ObjectNode json(CallPolicy policy) {
    ObjectNode o = JSON.objectNode();
    policy.timeout().ifPresent(t -> o.put("timeoutMs", t.toMillis()));
    policy
        .retry()
        .ifPresent(
            r -> {
              ObjectNode n = o.putObject("retry").put("maxAttempts", r.maxAttempts());
              n.put("initialBackoffMs", r.initialBackoff().toMillis());
              n.put("multiplier", r.multiplier());
              n.put("maxBackoffMs", r.maxBackoff().toMillis());
              r.notRetried().forEach(n.putArray("doNotRetry")::add);
            });
    policy.onUnknownOutcome().ifPresent(u -> o.put("onUnknownOutcome", u.wire()));
    return o;
  }
}
