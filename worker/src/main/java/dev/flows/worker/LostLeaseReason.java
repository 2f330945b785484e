package dev.flows.worker;

/** Why a worker gave up an attempt without completing it. Wire names are stable (SURFACE.md). */
public enum LostLeaseReason {
  /**
   * The lease was gone before any work started: past its local deadline, or the first renewal was
   * refused.
   */
  ALREADY_EXPIRED("already_expired"),
  /**
   * The local deadline passed while the work ran (renewals did not keep it alive); work was
   * canceled.
   */
  RENEWAL_EXPIRED("renewal_expired"),
  /** The work ended but the lease had expired (locally, or the journal refused the completion). */
  COMPLETION_EXPIRED("completion_expired");

  private final String wire;

  LostLeaseReason(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }
}
