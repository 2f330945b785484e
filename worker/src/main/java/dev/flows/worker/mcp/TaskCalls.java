package dev.flows.worker.mcp;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.DurableInput;
import dev.flows.kernel.journal.DurableTasks;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.TaskNote;
import dev.flows.kernel.mcp.InputRequest;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.worker.StepExecution;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Task-backed MCP calls ({@link DurableTasks}): a server that answers a call with a task has the
 * call for good, so the task is journaled at once ({@link Journal#recordTask}) and every later
 * attempt of the step polls it ({@code tasks/get}) instead of calling again, whatever the unknown
 * outcome rule would say. While the task works the attempt gives its step back as a durable timer
 * (no thread, lease or slot held); the wait is the server's hint within the configured bounds, or
 * backed off without one ({@link McpClientConfig#taskPoll}). The call's own timeout counts from the
 * task's journaled creation: past it the task is cancelled ({@code tasks/cancel}, journaled) and
 * the step fails {@code timeout}.
 */
final class TaskCalls {
  private final Journal journal;
  private final McpClientConfig limits;
  private final InstantSource clock;

  TaskCalls(Journal journal, McpClientConfig limits, InstantSource clock) {
    this.journal = journal;
    this.limits = limits;
    this.clock = clock;
  }

  /** How a task's end becomes the step's outcome: the executor's receipts and tails. */
  interface Ends {
    /** The task completed with the call's result: confirmed with the task id in the receipt. */
    StepOutcome taskCompleted(ToolCallResult result, String taskId);

    /** A failure with {@code diagnostic}, not retried (the task is the step's for good). */
    StepOutcome taskFailed(String diagnostic, String message);

    /** The task asks for input: the step parks for an answer. */
    StepOutcome taskAsks(Map<String, InputRequest> requests);

    /**
     * A task request ({@code tasks/get}, {@code tasks/update}, {@code tasks/cancel}) failed: as a
     * call's failure is answered (a lost connection is retried, and the retry polls again).
     */
    StepOutcome taskRequestFailed(Throwable failure);
  }

  /**
   * The server answered the attempt's call with {@code task}: settled as a poll's answer is, which
   * journals the task before anything else.
   */
  StepOutcome created(StepExecution ex, String path, McpTask task, Ends ends) {
    LeaseToken lease = ex.attempt().lease();
    return settle(lease, path, task, lease.attempt(), Optional.empty(), ends);
  }

  /**
   * An attempt of a step whose call is a journaled task: the task is polled (after sending the
   * journaled answer to a task that asked for input), never called again; {@code finisher} settles
   * the answer. Past the call's own timeout the task is cancelled instead.
   */
  CompletableFuture<StepOutcome> resume(
      StepExecution ex,
      McpCallInstruction in,
      String path,
      DurableTasks.StepTask task,
      McpTransportPort session,
      Ends ends,
      Executor finisher) {
    LeaseToken lease = ex.attempt().lease();
    String id = task.latest().taskId();
    OptionalLong own = ex.attempt().step().timeoutMs();
    if (own.isPresent()
        && !clock.instant().isBefore(task.createdAt().plusMillis(own.getAsLong()))) {
      String why = "the call's timeout of " + own.getAsLong() + " ms passed";
      CompletableFuture<Void> cancel = session.cancelTask(id);
      ex.token().onCancel(() -> cancel.cancel(true));
      return bounded(cancel)
          .handleAsync(
              (ok, failure) -> {
                if (failure != null && !refusedByServer(failure)) {
                  // Not known to have reached the server: the next attempt tries again.
                  return ends.taskRequestFailed(failure);
                }
                journal.noteTaskCancel(lease.runId(), lease.stepId(), id, why, "worker");
                return ends.taskFailed(
                    ErrorCode.TIMEOUT.wire(),
                    "no result within the call's timeout of "
                        + own.getAsLong()
                        + " ms (counted from the task's creation); task "
                        + id
                        + " was cancelled");
              },
              finisher);
    }
    CompletableFuture<Void> answered = CompletableFuture.completedFuture(null);
    if (task.latest().status().equals("input_required")) {
      Optional<DurableInput.Pending> answer =
          DurableInput.pending(journal.entries(lease.runId()), lease.stepId());
      if (answer.isPresent()) {
        answered = session.updateTask(id, answer.get().inputResponses());
      }
    }
    CompletableFuture<McpTask> polled = answered.thenCompose(v -> session.getTask(in.tool(), id));
    ex.token().onCancel(() -> polled.cancel(true));
    return bounded(polled)
        .handleAsync(
            (now, failure) ->
                failure != null
                    ? ends.taskRequestFailed(failure)
                    : settle(
                        lease,
                        path,
                        now,
                        task.createdAttempt(),
                        task.latest().pollIntervalMs(),
                        ends),
            finisher);
  }

  /** A task request answers within twice the call timeout, as a call does. */
  private <T> CompletableFuture<T> bounded(CompletableFuture<T> request) {
    return request.orTimeout(
        limits.callTimeout().toMillis() * 2, java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  /** Journals what changed, then answers the outcome the task's state calls for. */
  private StepOutcome settle(
      LeaseToken lease,
      String path,
      McpTask task,
      int createdAttempt,
      Optional<Long> journaledHint,
      Ends ends) {
    journal.recordTask(lease, path, note(task, journaledHint));
    String id = task.taskId();
    String said = task.statusMessage().map(m -> ": " + m).orElse("");
    return switch (task.state()) {
      case McpTask.State.Working w ->
          StepOutcome.Suspended.timer(
              limits.taskPoll(
                  task.pollInterval().or(() -> journaledHint.map(Duration::ofMillis)),
                  lease.attempt() - createdAttempt + 1));
      case McpTask.State.InputRequired ir -> ends.taskAsks(ir.requests());
      case McpTask.State.Completed c -> ends.taskCompleted(c.result(), id);
      case McpTask.State.Failed f ->
          ends.taskFailed(
              McpDiagnostic.MCP_TOOL_ERROR.wire(),
              "task " + id + " failed on the server (" + f.code() + "): " + f.message());
      case McpTask.State.Cancelled c ->
          ends.taskFailed(
              McpDiagnostic.MCP_TOOL_ERROR.wire(),
              "task "
                  + id
                  + " was cancelled on the server"
                  + said
                  + "; the call did not complete and is not sent again");
    };
  }

  /** A refusal the server answered (unknown task, already ended): nothing left to cancel. */
  static boolean refusedByServer(Throwable failure) {
    Throwable x = failure;
    while (x.getCause() != null && !(x instanceof McpException)) {
      x = x.getCause();
    }
    return x instanceof McpException m && m.diagnostic() == McpDiagnostic.MCP_TOOL_ERROR;
  }

  static TaskNote note(McpTask t, Optional<Long> journaledHint) {
    return new TaskNote(
        t.taskId(),
        t.status(),
        t.statusMessage(),
        t.pollInterval().map(Duration::toMillis).or(() -> journaledHint),
        t.ttl().map(Duration::toMillis),
        t.protocolVersion());
  }
}
