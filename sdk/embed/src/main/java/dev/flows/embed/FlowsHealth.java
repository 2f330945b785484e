package dev.flows.embed;

import java.util.Optional;

/**
 * What {@link Flows#health()} found: whether the database answered, whether its schema is this
 * build's, and what the worker does. {@code problem} says why the database check failed.
 */
public record FlowsHealth(
    boolean databaseReachable, boolean schemaCurrent, Worker worker, Optional<String> problem) {

  /** The worker of a {@link Flows}. */
  public enum Worker {
    /** Built without one: this instance only starts runs and waits for them. */
    NONE,
    /** Built with one that waits for {@link Flows#startWorker()}. */
    NOT_STARTED,
    /** Its claim loop runs. */
    CLAIMING,
    /** Drained, or its claim loop ended. */
    STOPPED
  }

  /** Healthy: the database answers with this build's schema, and a worker, if any, claims. */
  public boolean up() {
    return databaseReachable
        && schemaCurrent
        && (worker == Worker.NONE || worker == Worker.CLAIMING);
  }
}
