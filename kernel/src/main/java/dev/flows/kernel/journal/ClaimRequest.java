package dev.flows.kernel.journal;

import dev.flows.kernel.spec.StepKind;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * A worker asks for up to {@code capacity} ready steps of the kinds it serves. Steps whose spec
 * names no {@code leaseMs} get {@code defaultLease}. With {@code routes} present, only steps whose
 * {@link dev.flows.kernel.spec.Routes route} is in the set, or starts with one of {@code
 * routePrefixes}, are claimed: a worker never takes a step it cannot run (a flow class it lacks, an
 * instruction type it has no executor for) or was not given (a flow source). With {@code queues}
 * present, only steps of runs in one of those {@link Queues queues} are claimed.
 */
public record ClaimRequest(
    WorkerId workerId,
    Set<StepKind> kinds,
    int capacity,
    Duration defaultLease,
    Optional<Set<String>> routes,
    Set<String> routePrefixes,
    Optional<Set<String>> queues) {
  public ClaimRequest {
    kinds = Set.copyOf(kinds);
    routes = routes.map(Set::copyOf);
    routePrefixes = Set.copyOf(routePrefixes);
    queues = queues.map(Set::copyOf);
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0");
    }
  }

  /** Steps of the given kinds and routes, in any queue. */
  public ClaimRequest(
      WorkerId workerId,
      Set<StepKind> kinds,
      int capacity,
      Duration defaultLease,
      Optional<Set<String>> routes) {
    this(workerId, kinds, capacity, defaultLease, routes, Set.of(), Optional.empty());
  }

  /** Any step of the given kinds. */
  public ClaimRequest(WorkerId workerId, Set<StepKind> kinds, int capacity, Duration defaultLease) {
    this(workerId, kinds, capacity, defaultLease, Optional.empty());
  }

  /** This request for at most {@code n} steps. */
  public ClaimRequest withCapacity(int n) {
    return new ClaimRequest(workerId, kinds, n, defaultLease, routes, routePrefixes, queues);
  }

  public boolean accepts(String route) {
    return routes
        .map(r -> r.contains(route) || routePrefixes.stream().anyMatch(route::startsWith))
        .orElse(true);
  }

  public boolean serves(String queue) {
    return queues.map(q -> q.contains(queue)).orElse(true);
  }
}
