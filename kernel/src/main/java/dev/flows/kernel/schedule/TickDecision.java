package dev.flows.kernel.schedule;

import java.util.Arrays;

/** What was decided for one tick, journaled with it. */
public enum TickDecision {
  /** Started: nothing of the schedule was running (or a waiting tick's turn came). */
  STARTED("started"),
  /** Started alongside a run still going ({@link Overlap#ALLOW_ALL}). */
  STARTED_ALONGSIDE("started-alongside"),
  /** Started after canceling the run still going ({@link Overlap#CANCEL_OTHER}). */
  CANCELED_OTHER("canceled-other"),
  /**
   * Waits for the run still going to end ({@link Overlap#BUFFER_ONE}, {@link Overlap#BUFFER_ALL}).
   */
  BUFFERED("buffered"),
  /** Skipped: a run was still going ({@link Overlap#SKIP}). */
  SKIPPED_OVERLAP("skipped-overlap"),
  /** Skipped: a tick already waits ({@link Overlap#BUFFER_ONE}). */
  SKIPPED_BUFFER_FULL("skipped-buffer-full"),
  /** Skipped: seen due later than the catch-up window allows (no worker was there in time). */
  SKIPPED_MISSED("skipped-missed"),
  /** Skipped: the tick's admission key had admitted a run of another spec (a changed flow). */
  SKIPPED_CONFLICT("skipped-conflict");

  private final String wire;

  TickDecision(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public boolean starts() {
    return this == STARTED || this == STARTED_ALONGSIDE || this == CANCELED_OTHER;
  }

  public static TickDecision fromWire(String wire) {
    return Arrays.stream(values()).filter(d -> d.wire.equals(wire)).findFirst().orElseThrow();
  }
}
