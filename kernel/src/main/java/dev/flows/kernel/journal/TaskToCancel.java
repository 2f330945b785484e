package dev.flows.kernel.journal;

/**
 * A task still running on its server for a step whose run has ended ({@link
 * Journal#tasksToCancel}): someone must send it {@code tasks/cancel}, then {@link
 * Journal#noteTaskCancel}.
 */
public record TaskToCancel(
    RunRef runId, String stepId, String surfacePath, String taskId, String protocolVersion) {}
