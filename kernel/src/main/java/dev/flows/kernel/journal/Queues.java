package dev.flows.kernel.journal;

import java.util.regex.Pattern;

/**
 * A run's queue: workers claim only the queues they serve. A root run names its queue at admission
 * ({@link #DEFAULT} unless told otherwise); a child run is in its parent's queue, so every run of a
 * flow's tree is claimed by the workers of the root's queue.
 */
public final class Queues {
  public static final String DEFAULT = "default";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}");

  private Queues() {}

  public static boolean valid(String queue) {
    return NAME.matcher(queue).matches();
  }

  /** The queue name, or {@link IllegalArgumentException} saying which names are allowed. */
  public static String require(String queue) {
    if (!valid(queue)) {
      throw new IllegalArgumentException(
          "a queue name is 1 to 100 of A-Z a-z 0-9 _ . - starting with a letter or digit: "
              + queue);
    }
    return queue;
  }
}
