package dev.flows.sdk.runtime;

import dev.flows.kernel.FlowsException;
import dev.flows.sdk.FlowsError;
import java.util.function.Supplier;

/**
 * An engine refusal or failure as its public root: the code's wire name, message, place, fix and
 * retryability of the engine's {@link FlowsException}, which stays its cause. Whatever author code
 * can reach (a flow body's calls, the embedding API) converts here, so an author's {@code catch
 * (FlowsError e)} catches it and no engine type crosses.
 */
public final class PublicError extends FlowsError {
  private final FlowsException engine;

  private PublicError(FlowsException engine) {
    super(
        engine.code().wire(),
        engine.getMessage(),
        engine.place().orElse(""),
        engine.fix().orElse(""),
        engine.retryable(),
        engine);
    this.engine = engine;
  }

  /** {@code e} as its public root. */
  public static FlowsError of(FlowsException e) {
    return new PublicError(e);
  }

  /** The engine's exception this one stands for. */
  public FlowsException engine() {
    return engine;
  }

  /** {@code call}'s answer; an engine exception it throws crosses as a {@link FlowsError}. */
  public static <T> T guard(Supplier<T> call) {
    try {
      return call.get();
    } catch (FlowsException e) {
      throw of(e);
    }
  }

  /** Runs {@code call}; an engine exception it throws crosses as a {@link FlowsError}. */
  public static void guard(Runnable call) {
    try {
      call.run();
    } catch (FlowsException e) {
      throw of(e);
    }
  }
}
