package dev.flows.kernel.journal;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One version of a flow as {@code flows.versions} shows it: its route ({@code flow:NAME@VERSION}
 * for a class flow, {@code flow:source:SHA256} for a single-file flow), its runs not ended, the
 * oldest one's start (empty with none), and the live workers that serve it.
 */
public record FlowVersionState(
    String flow,
    String version,
    String route,
    long runs,
    Optional<Instant> oldestStartedAt,
    List<String> workers) {
  public FlowVersionState {
    Objects.requireNonNull(flow, "flow");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(route, "route");
    Objects.requireNonNull(oldestStartedAt, "oldestStartedAt");
    workers = List.copyOf(workers);
  }

  /** Runs wait on it and no live worker serves it. */
  public boolean stranded() {
    return runs > 0 && workers.isEmpty();
  }
}
