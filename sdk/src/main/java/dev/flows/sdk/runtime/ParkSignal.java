package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.RunId;

/** Unwinds the body when a child is parked: the root parks too until an operator resolves it. */
final class ParkSignal extends RuntimeException {
  final RunId child;

  ParkSignal(RunId child) {
    super("child run " + child + " is parked", null, false, false);
    this.child = child;
  }
}
