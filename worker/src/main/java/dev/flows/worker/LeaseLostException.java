package dev.flows.worker;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.LeaseToken;
import java.util.Optional;

/**
 * The attempt lost its lease: nothing more may be written for it, and the journal (its reconciler)
 * decides what becomes of the step. {@link #refusal()} is the journal's answer when one caused it.
 */
public final class LeaseLostException extends FlowsException {
  private final LostLeaseReason reason;
  private final ErrorCode refusal;
  private final int renewals;

  LeaseLostException(
      LeaseToken lease, LostLeaseReason reason, ErrorCode refusal, int renewals, Throwable cause) {
    super(
        ErrorCode.LEASE_CONFLICT,
        "lease lost (" + reason.wire() + ")" + (refusal == null ? "" : ": " + refusal.wire()),
        lease.place(),
        "nothing to do: the journal expires the attempt and retries the step",
        false,
        cause);
    this.reason = reason;
    this.refusal = refusal;
    this.renewals = renewals;
  }

  public LostLeaseReason reason() {
    return reason;
  }

  public Optional<ErrorCode> refusal() {
    return Optional.ofNullable(refusal);
  }

  /** Successful renewals before the lease was lost. */
  public int renewals() {
    return renewals;
  }
}
