package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.Pending;
import java.util.Optional;
import java.util.function.Function;

/**
 * A call issued at {@code position} whose child run is {@code issued}; {@code ready} holds its
 * result when it was known at issue (an inline call that answered at once).
 */
record ChildPending<T>(
    Fanout owner,
    int position,
    Children.Issued issued,
    Optional<JsonNode> ready,
    Function<JsonNode, T> convert)
    implements Pending<T> {
  @Override
  public T get() {
    return owner.get(this);
  }
}
