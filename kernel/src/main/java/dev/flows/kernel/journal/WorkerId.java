package dev.flows.kernel.journal;

import java.util.Objects;

/** One worker process, visible in every attempt it opens. */
public record WorkerId(String value) {
  public WorkerId {
    Objects.requireNonNull(value, "value");
    if (value.isBlank() || value.length() > 200) {
      throw new IllegalArgumentException("worker id must be 1..200 characters");
    }
  }

  @Override
  public String toString() {
    return value;
  }
}
