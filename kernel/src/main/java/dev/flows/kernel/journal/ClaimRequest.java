package dev.flows.kernel.journal;

import dev.flows.kernel.spec.StepKind;
import java.time.Duration;
import java.util.Set;

/**
 * A worker asks for up to {@code capacity} ready steps of the kinds it serves. Steps whose spec
 * names no {@code leaseMs} get {@code defaultLease}.
 */
public record ClaimRequest(
    WorkerId workerId, Set<StepKind> kinds, int capacity, Duration defaultLease) {
  public ClaimRequest {
    kinds = Set.copyOf(kinds);
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0");
    }
  }
}
