package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.StartRun;

/** Starts a child run; a seam so tests can hold a start back past the dispatch deadline. */
@FunctionalInterface
interface ChildStarter {
  /** Admits the child queued, for any worker to claim. */
  ChildStarter QUEUED = (journal, request) -> journal.admit(request, Admit.queued());

  void start(Journal journal, StartRun request);
}
