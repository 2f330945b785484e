package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Queues;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;
import java.util.Set;

/**
 * The options of the worker a {@link Flows} runs ({@link
 * FlowsBuilder#worker(java.util.function.Consumer)}), each starting at the worker's default
 * (SURFACE.md, "Configuration"): {@code w -> w.capacity(16)}.
 */
public final class WorkerOptions {
  private final WorkerConfig.Builder builder;
  private Set<String> queues = Set.of(Queues.DEFAULT);
  private boolean startLater;
  private final PayloadLimitOptions journalLimits = new PayloadLimitOptions();

  WorkerOptions(WorkerConfig.Builder builder) {
    this.builder = builder;
  }

  /**
   * The queues it claims from (default: {@code default} only); a name that is not a queue name, or
   * none at all, is refused {@code config_invalid}.
   */
  public WorkerOptions queues(Set<String> names) {
    if (names.isEmpty() || !names.stream().allMatch(Queues::valid)) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "worker queues " + names + " are not one or more queue names",
          "WorkerOptions.queues",
          "name at least one queue, each as `flows worker --queue` takes it");
    }
    queues = Set.copyOf(names);
    return this;
  }

  /**
   * The worker starts at {@link Flows#startWorker()} instead of at build: for a container that
   * starts its components in an order of its own (the Spring Boot starter's lifecycle).
   */
  public WorkerOptions startLater() {
    startLater = true;
    return this;
  }

  Set<String> queues() {
    return queues;
  }

  boolean startsLater() {
    return startLater;
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

  /**
   * The largest run input this engine's journal admits (its starts, a body's child runs, a
   * schedule's input; default 4 MiB): past it a start is refused {@code payload_too_large}, nothing
   * written; a bound outside 4096..268435455 is refused {@code config_invalid}.
   */
  public WorkerOptions maxRunInputBytes(long bytes) {
    journalLimits.maxRunInputBytes(bytes);
    return this;
  }

  /** The largest signal payload this engine's journal takes, as {@link #maxRunInputBytes}. */
  public WorkerOptions maxSignalBytes(long bytes) {
    journalLimits.maxSignalBytes(bytes);
    return this;
  }

  /** The largest input answer this engine's journal takes, as {@link #maxRunInputBytes}. */
  public WorkerOptions maxAnswerBytes(long bytes) {
    journalLimits.maxAnswerBytes(bytes);
    return this;
  }

  /**
   * The journal's limits these options set, if any: {@link FlowsBuilder} applies them (or {@link
   * FlowsBuilder#payloadLimits}'s; both is refused) over flows.json's to the journal and worker.
   */
  java.util.Optional<PayloadLimitOptions> journalLimits() {
    return journalLimits.any() ? java.util.Optional.of(journalLimits) : java.util.Optional.empty();
  }
}
