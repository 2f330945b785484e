package dev.flows.embed;

import dev.flows.worker.WorkerConfig;
import java.time.Duration;

/**
 * The options of the worker a {@link Flows} runs ({@link
 * FlowsBuilder#worker(java.util.function.Consumer)}), each starting at the worker's default
 * (SURFACE.md, "Configuration"): {@code w -> w.capacity(16)}.
 */
public final class WorkerOptions {
  private final WorkerConfig.Builder builder;

  WorkerOptions(WorkerConfig.Builder builder) {
    this.builder = builder;
  }

  /** Steps this worker runs at once (default 16). */
  public WorkerOptions capacity(int steps) {
    builder.capacity(steps);
    return this;
  }

  /** How often it looks for work when no notification woke it. */
  public WorkerOptions pollInterval(Duration interval) {
    builder.pollInterval(interval);
    return this;
  }

  /** How long a drain lets running attempts finish before it cancels them. */
  public WorkerOptions stopGrace(Duration grace) {
    builder.stopGrace(grace);
    return this;
  }

  /** The lease of a step whose spec names none. */
  public WorkerOptions defaultLease(Duration lease) {
    builder.defaultLease(lease);
    return this;
  }
}
