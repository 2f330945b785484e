package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * Which ended runs to remove, with their steps, effects and journal ({@link Journal#prune}).
 *
 * <p>A run tree goes as a whole: a root run (one with no parent) that ended more than {@code
 * olderThan} ago, judged by the journal's clock, whose every descendant has ended too, and that no
 * kept run names as the run it reruns. Oldest first, at most {@code limit} roots per call (empty:
 * all of them), so a caller prunes in small batches. A dry run answers what would go and writes
 * nothing. {@code by} is who prunes, kept in the audit record.
 */
public record PruneRequest(Duration olderThan, OptionalInt limit, String by, boolean dryRun) {
  /** The retention period when none is given. */
  public static final Duration DEFAULT_OLDER_THAN = Duration.ofDays(30);

  public PruneRequest {
    if (olderThan.isNegative()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "retention period must not be negative, got " + olderThan,
          "older-than",
          "give a period such as 30d, 12h or 90m");
    }
    if (limit.isPresent() && limit.getAsInt() < 1) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "prune batch must be at least 1 run, got " + limit.getAsInt(),
          "batch",
          "give a batch of 1 or more roots");
    }
    if (by.isBlank()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT, "who prunes must be named", "by", "name the operator or worker");
    }
  }
}
