package dev.flows.kernel.journal;

import java.util.Objects;
import java.util.Optional;

/**
 * What the journal knows of the task a server created for a step's call (MCP tasks): the
 * server-minted {@code taskId}, its {@code status} as the protocol names it ({@link
 * DurableTasks#STATUSES}), the server's {@code statusMessage}, its hints ({@code pollIntervalMs},
 * {@code ttlMs}) and the MCP revision it was created in, which decides how it is polled.
 */
public record TaskNote(
    String taskId,
    String status,
    Optional<String> statusMessage,
    Optional<Long> pollIntervalMs,
    Optional<Long> ttlMs,
    String protocolVersion) {
  public TaskNote {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(statusMessage, "statusMessage");
    Objects.requireNonNull(pollIntervalMs, "pollIntervalMs");
    Objects.requireNonNull(ttlMs, "ttlMs");
    Objects.requireNonNull(protocolVersion, "protocolVersion");
  }

  /** True for completed, failed and cancelled: the task never changes again. */
  public boolean terminal() {
    return DurableTasks.terminal(status);
  }
}
