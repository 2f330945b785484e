package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.RunRef;
import java.util.Optional;

/**
 * Unwinds the body when a child is parked: the root parks too until an operator resolves it. {@code
 * why}: a reason of the body's own (an {@code onInput} handler that could not answer).
 */
final class ParkSignal extends RuntimeException {
  final RunRef child;
  final Optional<String> why;

  ParkSignal(RunRef child) {
    this(child, Optional.empty());
  }

  ParkSignal(RunRef child, Optional<String> why) {
    super("child run " + child + " is parked", null, false, false);
    this.child = child;
    this.why = why;
  }
}
