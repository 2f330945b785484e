package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.RunRef;

/** What a replay check found for one run: its journal against the code given. */
public sealed interface ReplayVerdict {
  RunRef run();

  /** The line a report shows for the run. */
  String describe();

  /**
   * The code makes, at every journaled position, the call the journal holds, up to the journal's
   * end (or the body's, when it ends there too).
   */
  record Compatible(RunRef run) implements ReplayVerdict {
    @Override
    public String describe() {
      return "compatible";
    }
  }

  /** At {@code position} the journal holds {@code journaled}, the code makes {@code code}. */
  record Diverges(RunRef run, int position, String journaled, String code)
      implements ReplayVerdict {
    @Override
    public String describe() {
      return "diverges at position %d: journal has %s, code makes %s"
          .formatted(position, journaled, code);
    }
  }
}
