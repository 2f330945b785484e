package dev.flows.kernel.schedule;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.util.Arrays;

/** What a tick does while the schedule's previous run is still going. */
public enum Overlap {
  /** The tick is skipped. */
  SKIP("skip"),
  /** The tick waits for the previous run to end; a second waiting tick is skipped. */
  BUFFER_ONE("buffer-one"),
  /** Every such tick waits, and they start one after another. */
  BUFFER_ALL("buffer-all"),
  /** The previous run is canceled and the tick starts. */
  CANCEL_OTHER("cancel-other"),
  /** The tick starts alongside it. */
  ALLOW_ALL("allow-all");

  private final String wire;

  Overlap(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static Overlap fromWire(String wire) {
    return Arrays.stream(values())
        .filter(o -> o.wire.equals(wire))
        .findFirst()
        .orElseThrow(
            () ->
                new FlowsException(
                    ErrorCode.INVALID_INPUT,
                    "overlap policy "
                        + wire
                        + " is not one of skip, buffer-one, buffer-all,"
                        + " cancel-other, allow-all",
                    "schedule overlap",
                    "give one of skip, buffer-one, buffer-all, cancel-other, allow-all"));
  }
}
