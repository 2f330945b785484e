package dev.flows.kernel.journal;

import dev.flows.kernel.journal.MemoryState.RunRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The in-memory journal's {@link Journal#prune}: the rule of {@code flows.prune_runs}. */
final class MemoryRetention {
  private final MemoryState state;
  private long pruneSeq;

  MemoryRetention(MemoryState state) {
    this.state = state;
  }

  PruneReport prune(PruneRequest req, Instant now) {
    Instant cutoff = now.minus(req.olderThan());
    Map<RunRef, List<RunRow>> children = new HashMap<>();
    Map<RunRef, Integer> created = new HashMap<>();
    for (RunRow r : state.runs.values()) {
      created.put(r.id, created.size());
      r.parent.ifPresent(p -> children.computeIfAbsent(p, k -> new ArrayList<>()).add(r));
    }
    List<RunRow> candidates =
        state.runs.values().stream()
            .filter(r -> r.parent.isEmpty() && r.completedAt != null)
            .filter(r -> r.completedAt.isBefore(cutoff))
            .sorted(
                Comparator.comparing((RunRow r) -> r.completedAt)
                    .thenComparing(r -> created.get(r.id)))
            .toList();
    List<RunRow> roots = new ArrayList<>();
    Set<RunRef> runs = new HashSet<>();
    for (RunRow root : candidates) {
      if (req.limit().isPresent() && roots.size() >= req.limit().getAsInt()) {
        break;
      }
      Set<RunRef> tree = new HashSet<>();
      boolean ended = true;
      for (RunRow r : tree(root, children)) {
        tree.add(r.id);
        ended &= r.status.terminal();
      }
      boolean rerunFromOutside =
          state.runs.values().stream()
              .anyMatch(k -> !tree.contains(k.id) && k.rerunOf.filter(tree::contains).isPresent());
      if (ended && !rerunFromOutside) {
        roots.add(root);
        runs.addAll(tree);
      }
    }
    List<RunRef> rootIds = roots.stream().map(r -> r.id).toList();
    if (req.dryRun()) {
      return new PruneReport(
          Optional.empty(), rootIds, runs.size(), state.countEntries(runs), true);
    }
    if (roots.isEmpty()) {
      return new PruneReport(Optional.empty(), rootIds, 0, 0, false);
    }
    long entries = state.removeRuns(runs);
    return new PruneReport(Optional.of(++pruneSeq), rootIds, runs.size(), entries, false);
  }

  private static List<RunRow> tree(RunRow root, Map<RunRef, List<RunRow>> children) {
    List<RunRow> out = new ArrayList<>();
    List<RunRow> todo = new ArrayList<>(List.of(root));
    while (!todo.isEmpty()) {
      RunRow r = todo.removeLast();
      out.add(r);
      todo.addAll(children.getOrDefault(r.id, List.of()));
    }
    return out;
  }
}
