package dev.flows.kernel.journal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The in-memory journal's partial texts: a map by run and step, gone with the process. */
final class MemoryLiveText implements LiveText {
  private final Map<RunRef, Map<String, String>> texts = new ConcurrentHashMap<>();

  @Override
  public void publish(RunRef runId, String stepId, String text) {
    texts.computeIfAbsent(runId, r -> new ConcurrentHashMap<>()).put(stepId, text);
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

  @Override
  public List<Partial> of(RunRef runId) {
    return texts.getOrDefault(runId, Map.of()).entrySet().stream()
        .map(e -> new Partial(e.getKey(), e.getValue()))
        .sorted(java.util.Comparator.comparing(Partial::stepId))
        .toList();
  }
}
