package dev.flows.kernel.journal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The in-memory journal's partial texts: a map by run and step, gone with the process. A run's end
 * forgets its texts ({@link #forget}, under the journal's lock), and a text published for a run
 * that has ended is dropped, checked under the same lock: a turn the end cut off (a cancel, a
 * failure) leaves nothing behind.
 */
final class MemoryLiveText implements LiveText {
  private final Map<RunRef, Map<String, String>> texts = new ConcurrentHashMap<>();
  private final MemoryWakeups lock;
  private final MemoryState state;

  MemoryLiveText(MemoryWakeups lock, MemoryState state) {
    this.lock = lock;
    this.state = state;
  }

  @Override
  public void publish(RunRef runId, String stepId, String text) {
    lock.locked(
        () -> {
          MemoryState.RunRow run = state.runs.get(runId);
          if (run == null || run.completedAt == null) {
            texts.computeIfAbsent(runId, r -> new ConcurrentHashMap<>()).put(stepId, text);
          }
          return null;
        });
  }

  @Override
  public void clear(RunRef runId, String stepId) {
    texts.computeIfPresent(
        runId,
        (r, steps) -> {
          steps.remove(stepId);
          return steps.isEmpty() ? null : steps;
        });
  }

  /** Forgets every text of a run that ended (or was pruned); called under the journal's lock. */
  void forget(RunRef runId) {
    texts.remove(runId);
  }

  @Override
  public List<Partial> of(RunRef runId) {
    return texts.getOrDefault(runId, Map.of()).entrySet().stream()
        .map(e -> new Partial(e.getKey(), e.getValue()))
        .sorted(java.util.Comparator.comparing(Partial::stepId))
        .toList();
  }
}
