package dev.flows.kernel.journal;

import dev.flows.kernel.spec.StepKind;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * A worker asks for up to {@code capacity} ready steps of the kinds it serves. Steps whose spec
 * names no {@code leaseMs} get {@code defaultLease}. With {@code routes} present, only steps whose
 * {@link dev.flows.kernel.spec.Routes route} is in the set are claimed: a worker never takes a step
 * it cannot run (a flow class it lacks, an instruction type it has no executor for).
 */
public record ClaimRequest(
    WorkerId workerId,
    Set<StepKind> kinds,
    int capacity,
    Duration defaultLease,
    Optional<Set<String>> routes) {
  public ClaimRequest {
    kinds = Set.copyOf(kinds);
    routes = routes.map(Set::copyOf);
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0");
    }
  }

  /** Any step of the given kinds. */
  public ClaimRequest(WorkerId workerId, Set<StepKind> kinds, int capacity, Duration defaultLease) {
    this(workerId, kinds, capacity, defaultLease, Optional.empty());
  }

  public boolean accepts(String route) {
    return routes.map(r -> r.contains(route)).orElse(true);
  }
}
