package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Queues;
import dev.flows.sdk.runtime.PublicError;
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
 *   <li>{@link #version}: for a start by name, the flow's version the run must run at (a flow this
 *       instance hosts at another version, or no run of it at that version in the journal, is
 *       {@code flow_not_found}).
 * </ul>
 */
public final class StartOptions {
  private static final StartOptions NONE =
      new StartOptions(Optional.empty(), Optional.empty(), Optional.empty());

  private final Optional<String> key;
  private final Optional<String> queue;
  private final Optional<String> version;

  private StartOptions(Optional<String> key, Optional<String> queue, Optional<String> version) {
    this.key = key;
    this.queue = queue;
    this.version = version;
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
    return new StartOptions(Optional.of(key), queue, version);
  }

  /** These options with the run going to {@code queue}. */
  public StartOptions queue(String queue) {
    Objects.requireNonNull(queue, "queue");
    if (!Queues.valid(queue)) {
      throw PublicError.of(
          new FlowsException(
              ErrorCode.INVALID_INPUT,
              "not a queue name: " + queue,
              "StartOptions.queue",
              "use 1 to 100 of A-Z a-z 0-9 _ . - starting with a letter or digit"));
    }
    return new StartOptions(key, Optional.of(queue), version);
  }

  /** These options with the run of a flow started by name at {@code version}. */
  public StartOptions version(String version) {
    Objects.requireNonNull(version, "version");
    if (version.isBlank()) {
      throw PublicError.of(
          new FlowsException(
              ErrorCode.INVALID_INPUT,
              "a flow version must not be blank",
              "StartOptions.version",
              "give the version the flow's header declares"));
    }
    return new StartOptions(key, queue, Optional.of(version));
  }

  Optional<String> idempotencyKey() {
    return key;
  }

  Optional<String> queueName() {
    return queue;
  }

  Optional<String> versionName() {
    return version;
  }

  @Override
  public String toString() {
    return "StartOptions[key="
        + key.orElse("-")
        + ", queue="
        + queue.orElse("-")
        + ", version="
        + version.orElse("-")
        + "]";
  }
}
