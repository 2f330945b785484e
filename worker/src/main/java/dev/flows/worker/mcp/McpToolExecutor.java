package dev.flows.worker.mcp;

import static dev.flows.worker.mcp.McpCallTails.cap;
import static dev.flows.worker.mcp.McpCallTails.capTail;
import static dev.flows.worker.mcp.McpCallTails.failed;
import static dev.flows.worker.mcp.McpCallTails.retried;
import static dev.flows.worker.mcp.McpCallTails.tail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.DurableInput;
import dev.flows.kernel.journal.DurableTasks;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.ToolApproval;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.keys.SecretKeys;
import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.InputRequest;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpReceipt;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.kernel.spec.StepBody;
import dev.flows.mcp.client.McpSessions;
import dev.flows.worker.AgentInstructionExecutor;
import dev.flows.worker.FaultPoint;
import dev.flows.worker.StepExecution;
import dev.flows.worker.telemetry.RunTraces;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Performs one MCP tool call as a durable effect (agent instruction type {@code mcp}): record the
 * effect, call the tool with the idempotency key in {@code _meta}, confirm, and answer the receipt
 * {@code {type:"mcp", server, tool, input, output, idempotencyKey}}.
 *
 * <p>After a dead attempt the journal says what is known: a confirmed effect is answered from the
 * journal without calling; an effect recorded but never confirmed has an unknown outcome, and is
 * called again only when that is safe (read-only or idempotent tool, or a server that honours
 * idempotency keys) — otherwise the step parks {@code effect_outcome_unknown} for an operator.
 */
public final class McpToolExecutor implements AgentInstructionExecutor {
  public static final String TYPE = McpCallInstruction.TYPE;

  /** Trajectory tails are capped so a chatty failure cannot bloat the journal. */
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private static final ObjectMapper MAPPER = Jackson.mapper();
  private final McpSessions sessions;
  // Read to find a call's root run (for its trace context) when no body told it.
  private final Journal journal;

  private final TaskCalls tasks;
  // Opens a call's sealed arguments to send them; seals the secret parts of its answer.
  private final SecretKeys keys;
  // The largest receipt a call may journal (this worker's, or its server's own limit).
  private volatile ReceiptBound receipts = ReceiptBound.DEFAULT;

  public McpToolExecutor(McpSessions sessions, Journal journal) {
    this(sessions, journal, java.time.InstantSource.system());
  }

  /** {@code clock}: when a task's call timed out (counted from the task's journaled creation). */
  public McpToolExecutor(McpSessions sessions, Journal journal, java.time.InstantSource clock) {
    this(sessions, journal, clock, SecretKeys.none());
  }

  /** As above, with the secret keys a call's secret arguments and results are sealed under. */
  public McpToolExecutor(
      McpSessions sessions, Journal journal, java.time.InstantSource clock, SecretKeys keys) {
    this.sessions = sessions;
    this.journal = journal;
    this.tasks = new TaskCalls(journal, sessions.limits(), clock);
    this.keys = keys;
  }

  /** Bounds the receipts this executor journals by {@code bound}. */
  public McpToolExecutor receipts(ReceiptBound bound) {
    this.receipts = bound;
    return this;
  }

  @Override
  public String instructionType() {
    return TYPE;
  }

  @Override
  public StepOutcome execute(StepExecution ex) throws InterruptedException {
    // The answer is turned into the outcome on this thread, never on the transport's: the confirm
    // may be a journal write.
    CompletableFuture<Runnable> answered = new CompletableFuture<>();
    CompletableFuture<StepOutcome> outcome = executeAsync(ex, answered::complete);
    try {
      if (!outcome.isDone()) {
        answered.get().run();
      }
      return outcome.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CallCancelled) {
        throw new InterruptedException("call cancelled with the attempt");
      }
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * A call whose sealed arguments do not open, or whose result is to be sealed without a key, fails
   * {@code secret_key_missing} before anything is sent (and so before an answer exists).
   */
  private Optional<StepOutcome> keyMissing(McpCallInstruction in, String key, String path) {
    try {
      keys.open(in.input(), in.secretKeyEnvs(), path);
      if (!in.secretResult().isEmpty()) {
        keys.requireSealingKey(in.secretKeyEnvs(), path);
      }
      return Optional.empty();
    } catch (FlowsException noKey) {
      return Optional.of(failed(in, key, noKey.code().wire(), false, noKey.getMessage()));
    }
  }

  /** The instruction is the same on every worker: failed for good, nothing was sent. */
  private static StepOutcome malformed(FlowsException malformed) {
    ObjectNode t = JSON.objectNode().put("type", TYPE);
    t.put("diagnostic", malformed.code().wire()).put("message", malformed.getMessage());
    return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, t, false);
  }

  /**
   * Sends the call: its arguments (sealed secrets opened here, in memory only), the run's trace
   * context and the input it was answered.
   */
  private CompletableFuture<ToolCallOutcome> send(
      McpTransportPort session,
      McpCallInstruction in,
      ClaimedAttempt a,
      String key,
      McpCallTelemetry telemetry,
      LiveInputs.Recorder live,
      List<JournalRecord> entries) {
    @SuppressWarnings("unchecked")
    Map<String, Object> args =
        MAPPER.convertValue(keys.open(in.input(), in.secretKeyEnvs(), in.surface()), Map.class);
    // The run's trace context, derived from the lease; with tracing on, the call span's own.
    RunRef root = RunTraces.root(journal, a.lease().runId(), a.parentRunId());
    Map<String, Object> meta = TraceContext.meta(root, a.lease(), key);
    meta.putAll(telemetry.meta(key));
    // A response lost on the wire is re-sent by the same rule as a crash takeover. A server
    // that needs input answers input_required, and the step parks for it (DurableInput); once
    // answered, the call is re-issued with the journaled answers and requestState, same key.
    CallOptions options =
        CallOptions.PLAIN
            .withReissue(in.reperforms())
            .withDurableInput()
            .withLiveInput(live)
            .withTasks(in.taskMode());
    Optional<DurableInput.Pending> answered = DurableInput.pending(entries, a.lease().stepId());
    if (answered.isPresent()) {
      options = options.answering(answered.get().inputResponses(), answered.get().requestState());
    }
    return session.call(in.tool(), args, meta, options);
  }

  /**
   * The call without a thread waiting on it: the election and the send happen on the caller's
   * thread, the rest (the confirm and the receipt) on {@code finisher} once the server answers. A
   * call cancelled through the token fails the future with {@link CallCancelled}.
   */
  public CompletableFuture<StepOutcome> executeAsync(
      StepExecution ex, java.util.concurrent.Executor finisher) throws InterruptedException {
    McpCallInstruction in;
    try {
      in = McpCallInstruction.of((StepBody.Agent) ex.attempt().step().body());
    } catch (FlowsException malformed) {
      return CompletableFuture.completedFuture(malformed(malformed));
    }
    // Approval comes before the election: a call waiting for it, or denied, was never sent.
    return switch (approvalGate(in, ex.attempt())) {
      case ToolApproval.Gate.Hold held -> CompletableFuture.completedFuture(held.outcome());
      case ToolApproval.Gate.Send send ->
          sendable(ex, finisher, in.withInput(send.arguments()), send.note());
    };
  }

  /** {@link #executeAsync} for a call that may be sent, {@code approval} its decision if any. */
  private CompletableFuture<StepOutcome> sendable(
      StepExecution ex,
      java.util.concurrent.Executor finisher,
      McpCallInstruction in,
      Optional<ObjectNode> approval)
      throws InterruptedException {
    String server = in.server();
    String tool = in.tool();
    JsonNode input = in.input();
    String path = in.surface();
    EffectElection e = ex.effects().record(path);
    String key = e.idempotencyKey();
    if (e.deduped()) {
      return CompletableFuture.completedFuture(
          new StepOutcome.Succeeded(
              e.confirmedOutput()
                  .orElseGet(() -> McpReceipt.of(server, tool, input, JSON.nullNode(), key))));
    }
    ClaimedAttempt a = ex.attempt();
    List<JournalRecord> entries =
        a.lease().attempt() > 1 ? journal.entries(a.lease().runId()) : List.of();
    // A journaled task proves the server has the call: it is polled, never sent again.
    Optional<DurableTasks.StepTask> task = DurableTasks.of(entries, a.lease().stepId());
    if (task.isEmpty() && e.takenOver() && !in.reperforms()) {
      return CompletableFuture.completedFuture(unknownOutcome(in, key));
    }
    FaultPoint.AFTER_RECORD.reached();
    Optional<StepOutcome> noKey = keyMissing(in, key, path);
    if (noKey.isPresent()) {
      return CompletableFuture.completedFuture(noKey.get());
    }
    CompletableFuture<ToolCallOutcome> call;
    McpCallTelemetry telemetry = McpCallTelemetry.start(server, tool, in.connection());
    // A 2025 server's elicitation/create during the call (see LiveInputs).
    LiveInputs.Recorder live = LiveInputs.forCall(ex.attempt().lease().runId());
    OptionalLong own = ex.attempt().step().timeoutMs();
    Call c = new Call(ex, in, path, key, telemetry, own, live, tasks, approval, keys, receipts);
    try {
      McpTransportPort session = sessions.session(in.connection());
      if (task.isPresent()) {
        return tasks
            .resume(ex, in, path, task.get(), session, c, finisher)
            .whenComplete((o, t) -> telemetry.answeredTask());
      }
      call = send(session, in, a, key, telemetry, live, entries);
    } catch (McpException m) {
      telemetry.failed(m.diagnostic().wire());
      return CompletableFuture.completedFuture(
          failed(in, key, m.diagnostic().wire(), retried(m.diagnostic()), m.getMessage()));
    }
    ex.token().onCancel(() -> call.cancel(true));
    FaultPoint.DURING_CALL.reached();
    // The call's own timeout, when it has one; past it the future times out, which cancels the
    // request on the wire (McpConnection).
    return call.orTimeout(
            own.orElse(sessions.limits().callTimeout().toMillis() * 2), TimeUnit.MILLISECONDS)
        .handleAsync(c::finish, finisher);
  }

  /** The approval gate of {@code in}; the journal is read only for a call that needs approval. */
  private ToolApproval.Gate approvalGate(McpCallInstruction in, ClaimedAttempt a) {
    List<JournalRecord> entries = in.approval() ? journal.entries(a.lease().runId()) : List.of();
    return ToolApproval.gate(in, entries, a.lease().stepId());
  }

  /**
   * The answer to a call an earlier attempt sent and died before confirming, when it is not sent
   * again: parked for an operator, or failed when the call's policy says so.
   */
  private static StepOutcome unknownOutcome(McpCallInstruction in, String key) {
    String why =
        "an earlier attempt sent this call and died before confirming it; "
            + (in.onUnknownOutcome().isPresent()
                ? "the call's policy (onUnknownOutcome " + in.onUnknownOutcome().get().wire() + ")"
                : "the tool is not declared idempotent, so flows")
            + " will not send it again.";
    ObjectNode t =
        tail(in.server(), in.tool(), in.input(), key, ErrorCode.EFFECT_OUTCOME_UNKNOWN.wire(), "");
    if (in.failsOnUnknownOutcome()) {
      t.put("message", why + " The call fails.");
      return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, t, false);
    }
    t.put("message", why + " Resolve with `flows runs resolve`.");
    return new StepOutcome.Parked(
        CompletionReason.WORKER_ERROR, ErrorCode.EFFECT_OUTCOME_UNKNOWN, t);
  }

  /**
   * The server asked for input before acting: the step parks {@code input_required} with what was
   * asked and the state to echo, for {@code flows runs answer} (or the embedding API).
   */
  private static StepOutcome inputRequired(
      McpCallInstruction in,
      String key,
      Map<String, InputRequest> requests,
      Optional<String> requestState) {
    String asked =
        requests.values().stream()
            .map(
                r ->
                    switch (r) {
                      case InputRequest.Form f -> "a form: " + f.message();
                      case InputRequest.Url u -> "a visit to " + u.url();
                      case InputRequest.Other o -> o.method();
                    })
            .sorted()
            .collect(java.util.stream.Collectors.joining("; "));
    ObjectNode t =
        tail(
            in.server(),
            in.tool(),
            in.input(),
            key,
            DurableInput.DIAGNOSTIC,
            "the server asks for "
                + asked
                + ". Answer with `flows runs answer RUN STEP RESPONSE_JSON` (or --decline).");
    DurableInput.parkTail(t, requests, requestState);
    return new StepOutcome.Parked(CompletionReason.WORKER_ERROR, ErrorCode.INPUT_REQUIRED, t);
  }

  /** The call was cancelled with its attempt (token): nothing was confirmed. */
  public static final class CallCancelled extends RuntimeException {
    CallCancelled() {
      super("call cancelled with the attempt", null, false, false);
    }
  }

  /** What the answer of one sent call needs. */
  private record Call(
      StepExecution ex,
      McpCallInstruction in,
      String path,
      String key,
      McpCallTelemetry telemetry,
      OptionalLong ownTimeoutMs,
      LiveInputs.Recorder live,
      TaskCalls tasks,
      Optional<ObjectNode> approval,
      SecretKeys keys,
      ReceiptBound receipts)
      implements TaskCalls.Ends {
    StepOutcome finish(ToolCallOutcome outcome, Throwable failure) {
      if (failure == null) {
        switch (outcome) {
          case ToolCallOutcome.Completed c -> {
            return completed(c.result(), null);
          }
          case ToolCallOutcome.InputRequired ir -> {
            telemetry.failed(DurableInput.DIAGNOSTIC);
            return McpToolExecutor.inputRequired(in, key, ir.requests(), ir.requestState());
          }
          case ToolCallOutcome.TaskCreated tc -> {
            telemetry.answeredTask();
            return tasks.created(ex, path, tc.task(), this);
          }
        }
      }
      return completed(null, failure);
    }

    @Override
    public StepOutcome taskCompleted(ToolCallResult result, String taskId) {
      return receipt(result, Optional.of(taskId));
    }

    @Override
    public StepOutcome taskFailed(String diagnostic, String message) {
      return McpCallTails.failed(in, key, diagnostic, false, message);
    }

    @Override
    public StepOutcome taskRequestFailed(Throwable failure) {
      Throwable x = failure;
      while (x instanceof java.util.concurrent.CompletionException && x.getCause() != null) {
        x = x.getCause();
      }
      if (x instanceof TimeoutException) {
        McpDiagnostic d = McpDiagnostic.MCP_RESULT_UNAVAILABLE;
        return McpCallTails.failed(
            in, key, d.wire(), retried(d), "the server did not answer a task request in time");
      }
      return failedCall(failure);
    }

    @Override
    public StepOutcome taskAsks(Map<String, InputRequest> requests) {
      return McpToolExecutor.inputRequired(in, key, requests, Optional.empty());
    }

    private StepOutcome completed(ToolCallResult result, Throwable failure) {
      if (failure != null) {
        StepOutcome failed;
        try {
          failed = failedCall(failure);
        } catch (CallCancelled cancelled) {
          telemetry.failed("canceled");
          throw cancelled;
        }
        telemetry.failed(
            failed instanceof StepOutcome.Failed f
                ? f.trajectoryTail().path("diagnostic").asText()
                : "mcp_disconnected");
        return failed;
      }
      telemetry.answered(result);
      return receipt(result, Optional.empty());
    }

    /** Confirms the call's result and answers the step's outcome (the task id in the receipt). */
    private StepOutcome receipt(ToolCallResult result, Optional<String> taskId) {
      FaultPoint.AFTER_CALL_BEFORE_CONFIRM.reached();
      // Only the sealed form of a secret result is ever journaled (checked before the call).
      ObjectNode output =
          (ObjectNode)
              keys.seal(
                  McpReceipt.output(result), in.secretResult(), in.secretKeyEnvs(), in.surface());
      ObjectNode receipt =
          live.addTo(
              McpReceipt.withWire(
                  McpReceipt.of(in.server(), in.tool(), in.input(), output, key), result));
      taskId.ifPresent(id -> receipt.put("taskId", id));
      approval.ifPresent(n -> receipt.set(ToolApproval.KEY, n));
      Optional<StepOutcome> tooLarge = receipts.refuse(in, key, receipt);
      if (tooLarge.isPresent()) {
        return tooLarge.get();
      }
      // The tool ran either way: confirm, so a retry never sends it again.
      ex.effects().confirm(path, Optional.of(receipt));
      if (!ex.effects().confirmsAtCompletion()) {
        FaultPoint.AFTER_CONFIRM_BEFORE_COMPLETE.reached();
      }
      if (result.isError()) {
        ObjectNode t =
            tail(
                in.server(),
                in.tool(),
                in.input(),
                key,
                McpDiagnostic.MCP_TOOL_ERROR.wire(),
                "the tool reported an error: "
                    + (in.secretResult().isEmpty()
                        ? cap(result.text(), 2048)
                        : "(its text is withheld: the result holds secrets)"));
        t.set("output", output);
        return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, capTail(t), false);
      }
      return new StepOutcome.Succeeded(receipt);
    }

    private StepOutcome failedCall(Throwable failure) {
      Throwable x = failure;
      while ((x instanceof java.util.concurrent.CompletionException
              || x instanceof ExecutionException)
          && x.getCause() != null) {
        x = x.getCause();
      }
      if (x instanceof java.util.concurrent.CancellationException) {
        throw new CallCancelled();
      }
      if (x instanceof McpException m) {
        return failed(in, key, m.diagnostic().wire(), retried(m.diagnostic()), m.getMessage());
      }
      if (x instanceof TimeoutException && ownTimeoutMs.isPresent()) {
        return failed(
            in,
            key,
            ErrorCode.TIMEOUT.wire(),
            true,
            "no result within the call's timeout of "
                + ownTimeoutMs.getAsLong()
                + " ms; the request was cancelled");
      }
      if (x instanceof TimeoutException) {
        McpDiagnostic d = McpDiagnostic.MCP_RESULT_UNAVAILABLE;
        return failed(in, key, d.wire(), retried(d), "no result within the call timeout");
      }
      McpDiagnostic d = McpDiagnostic.MCP_DISCONNECTED;
      return failed(in, key, d.wire(), retried(d), String.valueOf(x));
    }
  }
}
