package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.Pending;
import java.util.Optional;
import java.util.function.Function;

/**
 * A call issued at {@code position} awaited as {@code call} (its child run, or the runs of a flow
 * call with a policy); {@code ready} holds its result when it was known at issue (an inline call
 * that answered at once); {@code onInput} answers the call's requests for input.
 */
record ChildPending<T>(
    Fanout owner,
    int position,
    Children.Awaited call,
    Optional<JsonNode> ready,
    Function<JsonNode, T> convert,
    Optional<dev.flows.sdk.Ctx.InputHandler> onInput)
    implements Pending<T> {
  @Override
  public T get() {
    return PublicError.guard(() -> owner.get(this));
  }
}
