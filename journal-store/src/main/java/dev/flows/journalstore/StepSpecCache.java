package dev.flows.journalstore;

import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.spec.StepSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The specs of recently claimed or fenced steps, least recently used dropped first. Safe to cache
 * forever: a step's spec never changes (the database refuses it) but for a flow body's instruction
 * (moved to another version), which leaves the surfaces judged here as they were, and steps are
 * never deleted, so an entry is never stale for them, only possibly evicted.
 */
final class StepSpecCache {
  private record Key(RunRef runId, String stepId) {}

  /**
   * A cached step: its spec, and its idempotency key (a SHA-256 of run and step, the same for every
   * attempt), computed once here instead of once per {@code f.step}.
   */
  record Cached(StepSpec spec, String idempotencyKey) {}

  private final int capacity;
  private final Map<Key, Cached> specs;

  StepSpecCache(int capacity) {
    this.capacity = capacity;
    this.specs =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Cached> eldest) {
            return size() > StepSpecCache.this.capacity;
          }
        };
  }

  synchronized Optional<Cached> get(RunRef runId, String stepId) {
    return Optional.ofNullable(specs.get(new Key(runId, stepId)));
  }

  synchronized void put(RunRef runId, String stepId, StepSpec spec) {
    if (capacity > 0) {
      // A step's spec never changes, so a known step only moves to most recently used.
      specs.computeIfAbsent(
          new Key(runId, stepId), k -> new Cached(spec, Keys.idempotencyKey(runId, stepId)));
    }
  }

  synchronized void remove(RunRef runId, String stepId) {
    specs.remove(new Key(runId, stepId));
  }
}
