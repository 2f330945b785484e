package dev.flows.embed;

import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.sdk.runtime.PublicError;
import java.util.OptionalLong;

/**
 * The journal's own payload limits of a {@link Flows} ({@link
 * FlowsBuilder#payloadLimits(java.util.function.Consumer)}): the largest run input, signal payload
 * and input answer its journal takes, with or without a worker, each over flows.json's {@code
 * limits} (when {@link FlowsBuilder#flowsJson} is given), else the 4 MiB default: {@code l ->
 * l.maxRunInputBytes(1 << 20)}. A bound outside 4096..268435455 is refused {@code config_invalid}
 * naming the limit.
 */
public final class PayloadLimitOptions {
  private OptionalLong runInput = OptionalLong.empty();
  private OptionalLong signal = OptionalLong.empty();
  private OptionalLong answer = OptionalLong.empty();

  PayloadLimitOptions() {}

  /**
   * The largest run input the journal admits (starts, a body's child runs, a schedule's input):
   * past it a start is refused {@code payload_too_large}, nothing written.
   */
  public PayloadLimitOptions maxRunInputBytes(long bytes) {
    PublicError.guard(() -> PayloadLimits.DEFAULTS.withMaxRunInputBytes(bytes));
    runInput = OptionalLong.of(bytes);
    return this;
  }

  /** The largest signal payload the journal takes, as {@link #maxRunInputBytes}. */
  public PayloadLimitOptions maxSignalBytes(long bytes) {
    PublicError.guard(() -> PayloadLimits.DEFAULTS.withMaxSignalBytes(bytes));
    signal = OptionalLong.of(bytes);
    return this;
  }

  /** The largest input answer the journal takes; past it the step stays parked. */
  public PayloadLimitOptions maxAnswerBytes(long bytes) {
    PublicError.guard(() -> PayloadLimits.DEFAULTS.withMaxAnswerBytes(bytes));
    answer = OptionalLong.of(bytes);
    return this;
  }

  /** Whether any limit was set. */
  boolean any() {
    return runInput.isPresent() || signal.isPresent() || answer.isPresent();
  }

  /** {@code base} with the limits set here. */
  PayloadLimits over(PayloadLimits base) {
    PayloadLimits out = base;
    if (runInput.isPresent()) {
      out = out.withMaxRunInputBytes(runInput.getAsLong());
    }
    if (signal.isPresent()) {
      out = out.withMaxSignalBytes(signal.getAsLong());
    }
    if (answer.isPresent()) {
      out = out.withMaxAnswerBytes(answer.getAsLong());
    }
    return out;
  }
}
