package dev.flows.sdk;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A run's id, as {@code flows runs show} prints it: letters, digits and {@code _ . : -}, at most
 * 200 characters. The one id type of the public API: ids go in and come out as a {@code RunId}.
 */
public record RunId(String value) {
  private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}");

  /**
   * @throws IllegalArgumentException when {@code value} does not have the shape of a run id
   */
  public RunId {
    Objects.requireNonNull(value, "value");
    if (!SHAPE.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "a run id must match " + SHAPE.pattern() + ", got " + value);
    }
  }

  public static RunId of(String value) {
    return new RunId(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
