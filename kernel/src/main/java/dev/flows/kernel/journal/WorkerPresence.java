package dev.flows.kernel.journal;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * What a worker announces ({@link WorkerRoster}): who it is, the queues it claims from, the step
 * routes it claims (a class flow's body {@code flow:NAME@VERSION}, a single-file flow's {@code
 * flow:source:SHA256}) and the route prefixes it accepts whole ({@code ""}: every route), and how
 * often it refreshes the announcement.
 */
public record WorkerPresence(
    WorkerId worker,
    String host,
    long pid,
    Set<String> queues,
    Set<String> routes,
    Set<String> routePrefixes,
    Duration refreshEvery) {
  public WorkerPresence {
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(host, "host");
    queues = Set.copyOf(queues);
    routes = Set.copyOf(routes);
    routePrefixes = Set.copyOf(routePrefixes);
    if (!refreshEvery.isPositive()) {
      throw new IllegalArgumentException("refreshEvery must be positive");
    }
  }
}
