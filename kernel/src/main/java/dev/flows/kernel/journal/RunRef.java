package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.util.UUID;
import java.util.regex.Pattern;

/** A run's id. Callers may choose it (child runs derive theirs deterministically). */
public record RunRef(String value) {
  private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}");

  public RunRef {
    if (value == null || !SHAPE.matcher(value).matches()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "run id must match " + SHAPE.pattern(),
          String.valueOf(value),
          "use letters, digits and _ . : - (at most 200 characters)");
    }
  }

  /**
   * A new id: {@code run_} and 32 hex digits, the first {@value #TIME_DIGITS} the wall clock's
   * milliseconds and the rest random. Ids made later sort after earlier ones, so a new run's rows
   * go in at the right edge of every index that leads with the run id instead of at a random page
   * of it (on a big journal a random page is seldom in memory, and is written again whole after
   * each checkpoint). The order is only a storage hint: nothing reads time from an id.
   */
  public static RunRef random() {
    String time = String.format("%0" + TIME_DIGITS + "x", System.currentTimeMillis());
    String random = UUID.randomUUID().toString().replace("-", "");
    return new RunRef("run_" + time + random.substring(TIME_DIGITS));
  }

  /** Hex digits of milliseconds at the start of a new id: enough until the year 10889. */
  static final int TIME_DIGITS = 12;

  @Override
  public String toString() {
    return value;
  }
}
