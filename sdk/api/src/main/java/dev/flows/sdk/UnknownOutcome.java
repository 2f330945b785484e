package dev.flows.sdk;

/**
 * What an MCP call does when an earlier attempt sent it and died before its result was journaled
 * (its outcome is unknown), overriding what the tool's annotations and flows.json decide.
 */
public enum UnknownOutcome {
  /** Send it again with the same idempotency key. */
  RETRY_WITH_KEY("retry_with_key"),
  /** Park the call ({@code effect_outcome_unknown}) until an operator resolves it. */
  PARK("park"),
  /** Fail the call with {@code effect_outcome_unknown}; the body may catch it. */
  FAIL("fail");

  private final String wire;

  UnknownOutcome(String wire) {
    this.wire = wire;
  }

  /** The name journaled in the call's instruction ({@code onUnknownOutcome}). */
  public String wire() {
    return wire;
  }
}
