package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Queues;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link Flows#start} admits a run: {@code StartOptions.key("order-42").queue("billing")}.
 * Immutable: each method answers new options.
 *
 * <ul>
 *   <li>{@link #key}: the idempotency key; the same key finds the same run (the admission key is
 *       {@code flow:<name>:<key>}, as for {@code flows run --key}). Without one, each start is a
 *       new run.
 *   <li>{@link #queue}: the queue the run goes to instead of the flow header's; only workers
 *       serving it claim the run and its children.
 * </ul>
 */
public final class StartOptions {
  private static final StartOptions NONE = new StartOptions(Optional.empty(), Optional.empty());

  private final Optional<String> key;
  private final Optional<String> queue;

  private StartOptions(Optional<String> key, Optional<String> queue) {
    this.key = key;
    this.queue = queue;
  }

  /** A new run each start, on the flow header's queue. */
  public static StartOptions none() {
    return NONE;
  }

  /** Options with the idempotency key {@code key}. */
  public static StartOptions key(String key) {
    return NONE.withKey(key);
  }

  /** These options with the idempotency key {@code key}. */
  public StartOptions withKey(String key) {
    Objects.requireNonNull(key, "key");
    return new StartOptions(Optional.of(key), queue);
  }

  /** These options with the run going to {@code queue}. */
  public StartOptions queue(String queue) {
    Objects.requireNonNull(queue, "queue");
    if (!Queues.valid(queue)) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "not a queue name: " + queue,
          "StartOptions.queue",
          "use 1 to 100 of A-Z a-z 0-9 _ . - starting with a letter or digit");
    }
    return new StartOptions(key, Optional.of(queue));
  }

  Optional<String> idempotencyKey() {
    return key;
  }

  Optional<String> queueName() {
    return queue;
  }

  @Override
  public String toString() {
    return "StartOptions[key=" + key.orElse("-") + ", queue=" + queue.orElse("-") + "]";
  }
}
