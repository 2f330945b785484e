package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.ToolApproval;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal stand-in for the worker runtime, enough to drive flows through a journal in sdk tests:
 * flow roots run on virtual threads, MCP children call an in-memory "server" that counts how often
 * each idempotency key was performed, and command children succeed.
 */
final class MiniWorker {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  final Journal journal;
  final FlowBodyRunner runner;
  final Map<String, AtomicInteger> performedByKey = new ConcurrentHashMap<>();
  final List<String> calls = java.util.Collections.synchronizedList(new ArrayList<>());
  final List<Thread> bodies = java.util.Collections.synchronizedList(new ArrayList<>());
  volatile boolean serveMcp = true;

  /** Calls end as a dead attempt's take-over of a non-idempotent call does: parked. */
  volatile boolean parkMcp = false;

  volatile Duration lease = Duration.ofSeconds(30);

  /**
   * Tools ({@code server/tool}) whose server performs each call and dies before answering: the
   * attempt fails {@code mcp_disconnected}, retryable, its election left unconfirmed.
   */
  final Set<String> dying = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * The leases of flow bodies running in the background, renewed by {@link #tick} as a worker's
   * lease keeper renews them: a body outlives its lease only when the test kills it.
   */
  private final Map<LeaseToken, Thread> renewing = new ConcurrentHashMap<>();

  private long renewedAt = System.nanoTime();

  /** Tools ({@code server/tool}) whose calls fail {@code mcp_tool_error} with "TOOL refused". */
  final Set<String> failing = java.util.concurrent.ConcurrentHashMap.newKeySet();

  MiniWorker(Journal journal, FlowBodyRunner runner) {
    this.journal = journal;
    this.runner = runner;
  }

  /** Claims and runs whatever is ready; flow bodies go on in the background. */
  int tick() {
    renewHeld();
    Set<StepKind> kinds = EnumSet.allOf(StepKind.class);
    List<ClaimedAttempt> claimed =
        journal.claim(new ClaimRequest(new WorkerId("mini"), kinds, 16, lease));
    for (ClaimedAttempt a : claimed) {
      switch (a.step().body()) {
        case StepBody.Agent agent when agent.instructionType().equals(FlowBodyInstruction.TYPE) -> {
          Thread t =
              Thread.ofVirtual()
                  .start(
                      () -> {
                        try {
                          journal.complete(a.lease(), runner.run(a));
                        } catch (InterruptedException e) {
                          // The "worker" died: complete nothing, the lease will expire.
                        } catch (RuntimeException e) {
                          // A lease lost while completing: the journal owns the attempt.
                        }
                      });
          bodies.add(t);
          renewing.put(a.lease(), t);
        }
        case StepBody.Agent agent -> journal.complete(a.lease(), mcp(a, agent.instruction()));
        case StepBody.Deterministic d ->
            journal.complete(
                a.lease(), new StepOutcome.Succeeded(JSON.objectNode().put("exitCode", 0)));
        case StepBody.Llm l ->
            journal.complete(
                a.lease(),
                new StepOutcome.Failed(CompletionReason.WORKER_ERROR, JSON.objectNode(), false));
      }
    }
    return claimed.size();
  }

  /** The arguments each performed call was sent with, in order ({@code server/tool} → args). */
  final List<Map.Entry<String, JsonNode>> sent =
      java.util.Collections.synchronizedList(new ArrayList<>());

  private StepOutcome mcp(ClaimedAttempt a, JsonNode in) {
    String server = in.path("server").asText();
    String tool = in.path("tool").asText();
    // Approval before the election, as the worker's executor does it.
    ToolApproval.Gate.Send approved;
    switch (ToolApproval.gate(
        McpCallInstruction.fromJson(in), journal.entries(a.lease().runId()), a.lease().stepId())) {
      case ToolApproval.Gate.Hold held -> {
        return held.outcome();
      }
      case ToolApproval.Gate.Send send -> approved = send;
    }
    String path = Lowering.mcpSurface(server, tool);
    EffectElection e = journal.recordEffect(a.lease(), path);
    if (e.deduped()) {
      return new StepOutcome.Succeeded(e.confirmedOutput().orElseThrow());
    }
    if (parkMcp) {
      return new StepOutcome.Parked(
          CompletionReason.WORKER_ERROR,
          dev.flows.kernel.ErrorCode.EFFECT_OUTCOME_UNKNOWN,
          JSON.objectNode().put("diagnostic", "effect_outcome_unknown"));
    }
    performedByKey.computeIfAbsent(e.idempotencyKey(), k -> new AtomicInteger()).incrementAndGet();
    calls.add(server + "/" + tool);
    sent.add(Map.entry(server + "/" + tool, approved.arguments()));
    if (dying.contains(server + "/" + tool)) {
      return new StepOutcome.Failed(
          CompletionReason.WORKER_ERROR,
          JSON.objectNode()
              .put("diagnostic", "mcp_disconnected")
              .put("message", "connection is disconnected"),
          true);
    }
    if (failing.contains(server + "/" + tool)) {
      return new StepOutcome.Failed(
          CompletionReason.WORKER_ERROR,
          JSON.objectNode().put("diagnostic", "mcp_tool_error").put("message", tool + " refused"),
          false);
    }
    ObjectNode output = JSON.objectNode();
    output.putArray("content").addObject().put("type", "text").put("text", tool + " done");

    ObjectNode receipt =
        JSON.objectNode().put("type", "mcp").put("server", server).put("tool", tool);
    receipt.set("input", approved.arguments());
    approved.note().ifPresent(n -> receipt.set(ToolApproval.KEY, n));
    receipt.set("output", output);
    receipt.put("idempotencyKey", e.idempotencyKey());
    journal.confirmEffect(a.lease(), path, java.util.Optional.of(receipt));
    return new StepOutcome.Succeeded(receipt);
  }

  /** Renews the leases of the bodies still running, at a third of the lease as a worker does. */
  private void renewHeld() {
    renewing.values().removeIf(t -> !t.isAlive());
    if (renewing.isEmpty() || System.nanoTime() - renewedAt < lease.toNanos() / 3) {
      return;
    }
    renewedAt = System.nanoTime();
    journal
        .renewLeases(List.copyOf(renewing.keySet()))
        .refused()
        .keySet()
        .forEach(renewing::remove);
  }

  /** The "worker" dies: its bodies stop and their leases are no longer renewed. */
  void killBodies() {
    renewing.clear();
    for (Thread t : bodies) {
      t.interrupt();
    }
    bodies.clear();
  }
}
