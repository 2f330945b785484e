package dev.flows.kernel.journal;

import java.util.List;
import java.util.Optional;

/**
 * What a {@link Journal#prune} removed (or, for a dry run, would remove): the roots in the order
 * they were chosen, how many runs their trees held and how many journal entries went with them.
 * {@code pruneId} names the audit record; empty for a dry run and when nothing was eligible.
 */
public record PruneReport(
    Optional<Long> pruneId, List<RunRef> roots, int runs, long entries, boolean dryRun) {
  public PruneReport {
    roots = List.copyOf(roots);
  }

  public boolean empty() {
    return roots.isEmpty();
  }
}
