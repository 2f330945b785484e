package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The answer to {@link Journal#renewLeases}: every token asked about is in exactly one of the two
 * maps. {@code renewed} holds each renewed lease with its new deadline (journal clock); {@code
 * refused} holds each other lease with the code a {@link Journal#heartbeat} would have been refused
 * with ({@code lease_conflict}: lost or expired; {@code run_terminal}: the run ended; {@code
 * run_not_found}: no such run).
 */
public record LeaseRenewals(Map<LeaseToken, Instant> renewed, Map<LeaseToken, ErrorCode> refused) {
  public LeaseRenewals {
    renewed = Map.copyOf(renewed);
    refused = Map.copyOf(refused);
    for (LeaseToken t : renewed.keySet()) {
      if (refused.containsKey(t)) {
        throw new IllegalArgumentException(t.place() + " is both renewed and refused");
      }
    }
  }

  public static LeaseRenewals none() {
    return new LeaseRenewals(Map.of(), Map.of());
  }

  /** The new deadline of {@code lease}, absent when it was refused or not asked about. */
  public Optional<Instant> deadline(LeaseToken lease) {
    return Optional.ofNullable(renewed.get(lease));
  }

  /** Why {@code lease} was refused, absent when it was renewed or not asked about. */
  public Optional<ErrorCode> refusal(LeaseToken lease) {
    return Optional.ofNullable(refused.get(lease));
  }
}
