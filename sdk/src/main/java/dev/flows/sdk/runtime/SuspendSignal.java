package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.StepOutcome;

/**
 * Unwinds the body when it gives its attempt back: it has waited {@code suspendAfter} on a running
 * child, or it sleeps, or it waits for a signal. The attempt ends with {@link #outcome} and the
 * body is replayed when what it waits for happens. An {@link Error}, so a body's {@code catch
 * (Exception e)} does not swallow it; once thrown, every later {@code f} call of this attempt
 * throws it again.
 */
final class SuspendSignal extends Error {
  final StepOutcome.Suspended outcome;

  SuspendSignal(StepOutcome.Suspended outcome, String what) {
    super("the body waits on " + what + " and gives its attempt back", null, false, false);
    this.outcome = outcome;
  }
}
