package dev.flows.journalstore;

import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.spec.StepSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The specs of recently claimed or fenced steps, least recently used dropped first. Safe to cache
 * forever: a step's spec never changes (the database refuses it) and steps are never deleted, so an
 * entry is never stale, only possibly evicted.
 */
final class StepSpecCache {
  private record Key(RunId runId, String stepId) {}

  private final int capacity;
  private final Map<Key, StepSpec> specs;

  StepSpecCache(int capacity) {
    this.capacity = capacity;
    this.specs =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, StepSpec> eldest) {
            return size() > StepSpecCache.this.capacity;
          }
        };
  }

  synchronized Optional<StepSpec> get(RunId runId, String stepId) {
    return Optional.ofNullable(specs.get(new Key(runId, stepId)));
  }

  synchronized void put(RunId runId, String stepId, StepSpec spec) {
    if (capacity > 0) {
      specs.put(new Key(runId, stepId), spec);
    }
  }
}
