package dev.flows.ops.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/** Percentiles of a sample in nanoseconds, reported in milliseconds. */
record Stats(List<Long> sortedNanos) {
  static Stats of(Collection<Long> nanos) {
    List<Long> s = new ArrayList<>(nanos);
    Collections.sort(s);
    return new Stats(List.copyOf(s));
  }

  boolean empty() {
    return sortedNanos.isEmpty();
  }

  double ms(double quantile) {
    if (sortedNanos.isEmpty()) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(quantile * sortedNanos.size()) - 1;
    return sortedNanos.get(Math.max(0, Math.min(i, sortedNanos.size() - 1))) / 1e6;
  }

  double p50() {
    return ms(0.50);
  }

  double p99() {
    return ms(0.99);
  }
}
