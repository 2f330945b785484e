package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.RunId;

/**
 * Unwinds the body when it has waited {@code suspendAfter} on a running child: the attempt ends
 * suspended and the body is replayed when the child ends. An {@link Error}, so a body's {@code
 * catch (Exception e)} does not swallow it; once thrown, every later {@code f} call of this attempt
 * throws it again.
 */
final class SuspendSignal extends Error {
  final RunId child;

  SuspendSignal(RunId child) {
    super(
        "the body waits on child run " + child + " and gives its attempt back", null, false, false);
    this.child = child;
  }
}
