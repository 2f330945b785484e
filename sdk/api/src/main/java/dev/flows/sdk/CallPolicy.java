package dev.flows.sdk;

import dev.flows.kernel.ErrorCode;
import java.time.Duration;
import java.util.Optional;

/**
 * The policy a call handle carries ({@code f.step(name)}, {@code f.command(...)}, {@code
 * f.mcp(s).tool(t)}): each part empty when the call keeps its default. Immutable: every {@code
 * with} answers a new policy.
 */
public record CallPolicy(
    Optional<Duration> timeout,
    Optional<RetryPolicy> retry,
    Optional<UnknownOutcome> onUnknownOutcome,
    Optional<TaskUse> tasks) {
  public static final CallPolicy DEFAULT =
      new CallPolicy(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

  /**
   * @throws FlowsError {@code invalid_input} for a timeout that is not positive
   */
  public CallPolicy withTimeout(Duration d) {
    if (d == null || !d.isPositive()) {
      throw invalid(
          "a call timeout must be positive, got " + d, "timeout", "pass a positive Duration");
    }
    return new CallPolicy(Optional.of(d), retry, onUnknownOutcome, tasks);
  }

  public CallPolicy withRetry(RetryPolicy p) {
    return new CallPolicy(timeout, Optional.of(given(p, "retry")), onUnknownOutcome, tasks);
  }

  public CallPolicy withOnUnknownOutcome(UnknownOutcome o) {
    return new CallPolicy(timeout, retry, Optional.of(given(o, "onUnknownOutcome")), tasks);
  }

  public CallPolicy withTasks(TaskUse use) {
    return new CallPolicy(timeout, retry, onUnknownOutcome, Optional.of(given(use, "tasks")));
  }

  private static <T> T given(T value, String what) {
    if (value == null) {
      throw invalid(what + " needs a value, got null", what, "pass a value");
    }
    return value;
  }

  private static FlowsError invalid(String message, String place, String fix) {
    return new FlowsError(ErrorCode.INVALID_INPUT.wire(), message, place, fix, false, null);
  }

  public boolean isDefault() {
    return equals(DEFAULT);
  }
}
