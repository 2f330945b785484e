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

  public static RunRef random() {
    return new RunRef("run_" + UUID.randomUUID().toString().replace("-", ""));
  }

  @Override
  public String toString() {
    return value;
  }
}
