package dev.flows.ops;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.DurableInput;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.ToolApproval;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepKind;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Runs in each state for the console's tests, put there by the real journal's verbs as a worker
 * would. Each run's step is claimed right after admission; a "running" run keeps its attempt open
 * (nothing expires leases in these tests), so only runs an action sent back to work are claimed on
 * the way.
 */
final class ConsoleWorkload {
  static final WorkerId WORKER = new WorkerId("console-worker");
  private static final Duration LEASE = Duration.ofMinutes(10);
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final Journal journal;

  ConsoleWorkload(Journal journal) {
    this.journal = journal;
  }

  RunRef start(String flow, RunSpec spec) {
    return journal.admit(StartRun.of(flow + "-" + UUID.randomUUID(), spec), Admit.queued()).runId();
  }

  /** Its admission key: {@code flow-<uuid>}. */
  String admissionKey(RunRef run) {
    return journal.run(run).orElseThrow().admissionKey();
  }

  ClaimedAttempt claim(RunRef run, StepKind kind) {
    for (int i = 0; i < 50; i++) {
      List<ClaimedAttempt> got = journal.claim(new ClaimRequest(WORKER, Set.of(kind), 1, LEASE));
      for (ClaimedAttempt a : got) {
        if (a.lease().runId().equals(run)) {
          return a;
        }
        // A run an action sent back to work (resume): done with, so it is not in the way again.
        journal.complete(a.lease(), new StepOutcome.Succeeded(JSON.nullNode()));
      }
    }
    throw new AssertionError("step of " + run + " never became claimable");
  }

  RunRef succeeded(String flow, ObjectNode output) {
    RunRef run = start(flow, Specs.named(flow, Specs.command("a", "true")));
    journal.complete(claim(run, StepKind.DETERMINISTIC).lease(), new StepOutcome.Succeeded(output));
    return run;
  }

  RunRef failed(String flow, String diagnostic) {
    RunRef run = start(flow, Specs.named(flow, Specs.command("a", "false")));
    journal.complete(
        claim(run, StepKind.DETERMINISTIC).lease(),
        new StepOutcome.Failed(
            CompletionReason.WORKER_ERROR,
            JSON.objectNode()
                .put("diagnostic", diagnostic)
                .put("message", "the command exited 1")
                .put("fix", "look at its stderr"),
            false));
    return run;
  }

  RunRef parked(String flow) {
    RunRef run = start(flow, Specs.named(flow, Specs.command("a", "true")));
    journal.complete(
        claim(run, StepKind.DETERMINISTIC).lease(),
        new StepOutcome.Parked(
            CompletionReason.WORKER_ERROR,
            ErrorCode.EFFECT_OUTCOME_UNKNOWN,
            JSON.objectNode().put("diagnostic", "effect_outcome_unknown")));
    return run;
  }

  /** A run whose only attempt is open: running until someone cancels it. */
  RunRef running(String flow) {
    RunRef run = start(flow, Specs.named(flow, Specs.command("a", "sleep", "600")));
    claim(run, StepKind.DETERMINISTIC);
    return run;
  }

  /** An MCP call with its input, its effect (idempotency key, receipt) confirmed, succeeded. */
  RunRef mcpCall(String flow) {
    ObjectNode input = JSON.objectNode().put("title", "printer on fire");
    RunRef run = start(flow, Specs.named(flow, Specs.mcpCall("call", "tickets", "create", input)));
    ClaimedAttempt a = claim(run, StepKind.AGENT);
    String surface = McpCallInstruction.surface("tickets", "create");
    ObjectNode receipt =
        JSON.objectNode()
            .put("type", "mcp")
            .put("server", "tickets")
            .put("tool", "create")
            .put("idempotencyKey", a.lease().runId().value() + "/call");
    receipt.set("input", input);
    receipt.putObject("output").put("ticket", "T-42");
    journal.recordEffect(a.lease(), surface);
    journal.confirmEffect(a.lease(), surface, Optional.of(receipt));
    journal.complete(a.lease(), new StepOutcome.Succeeded(receipt));
    return run;
  }

  /**
   * A flow body (step {@code body}, memos under {@code /memo/*}) that starts child flow {@code
   * ticket} (an MCP call that parks {@code effect_outcome_unknown} and is resolved {@code childMs}
   * later), then sleeps on a timer of {@code timerMs}, then waits for signal {@code approve}, sent
   * {@code signalMs} after the wait began; each memo and outcome journaled as the SDK's body
   * runtime does. Answers the run and its child.
   */
  RunRef[] body(String flow, long childMs, long timerMs, long signalMs)
      throws InterruptedException {
    RunRef run = start(flow, Specs.named(flow, Specs.agent("body", "/memo/*")));
    ClaimedAttempt a1 = claim(run, StepKind.AGENT);
    RunRef child = new RunRef(run.value() + "-ticket");
    memo(
        a1,
        "/memo/1",
        JSON.objectNode()
            .put("verb", "f.flow")
            .put("flow", "ticket")
            .put("attempt", 1)
            .put("child", child.value()));
    ObjectNode input = JSON.objectNode().put("title", "printer on fire");
    journal.admit(
        new StartRun(
            Optional.of(child),
            child.value(),
            Specs.named("ticket", Specs.mcpCall("call", "tickets", "create", input)),
            Optional.of(run),
            "api"),
        Admit.queued());
    journal.complete(a1.lease(), new StepOutcome.Suspended(child, LEASE));
    ClaimedAttempt c = claim(child, StepKind.AGENT);
    String surface = McpCallInstruction.surface("tickets", "create");
    journal.recordEffect(c.lease(), surface);
    journal.complete(
        c.lease(),
        new StepOutcome.Parked(
            CompletionReason.WORKER_ERROR,
            ErrorCode.EFFECT_OUTCOME_UNKNOWN,
            JSON.objectNode().put("diagnostic", "effect_outcome_unknown")));
    Thread.sleep(childMs);
    ObjectNode result = JSON.objectNode().put("ticket", "T-7");
    journal.resolveStep(child, "call", Optional.of(result), "ops");

    ClaimedAttempt a2 = claimWithin(run, Duration.ofSeconds(10));
    memo(a2, "/memo/1/outcome", JSON.objectNode().set("value", result));
    java.time.Instant until = java.time.Instant.now().plusMillis(timerMs);
    memo(a2, "/memo/2", JSON.objectNode().put("verb", "f.sleep").put("until", until.toString()));
    journal.complete(
        a2.lease(), new StepOutcome.Suspended(Set.of(), Set.of(), Duration.ofMillis(timerMs)));
    ClaimedAttempt a3 = claimWithin(run, Duration.ofSeconds(10));
    memo(a3, "/memo/2/outcome", JSON.objectNode().put("fired", true));
    memo(
        a3,
        "/memo/3",
        JSON.objectNode()
            .put("verb", "f.awaitSignal")
            .put("signal", "approve")
            .put("until", java.time.Instant.now().plus(LEASE).toString()));
    journal.complete(a3.lease(), new StepOutcome.Suspended(Set.of(), Set.of("approve"), LEASE));
    Thread.sleep(signalMs);
    journal.sendSignal(
        run, "approve", JSON.objectNode().put("approved", true), Optional.of("workload/approve"));
    ClaimedAttempt a4 = claimWithin(run, Duration.ofSeconds(10));
    memo(a4, "/memo/3/outcome", JSON.objectNode().put("approved", true));
    journal.complete(a4.lease(), new StepOutcome.Succeeded(JSON.objectNode().put("ticket", "T-7")));
    return new RunRef[] {run, child};
  }

  /** A body of {@code memos} memos (two journal entries each) that succeeded. */
  RunRef manyMemos(String flow, int memos) {
    RunRef run = start(flow, Specs.named(flow, Specs.agent("body", "/memo/*")));
    ClaimedAttempt a = claim(run, StepKind.AGENT);
    for (int i = 1; i <= memos; i++) {
      memo(a, "/memo/" + i, JSON.objectNode().put("name", "step-" + i).put("value", i));
    }
    journal.complete(a.lease(), new StepOutcome.Succeeded(JSON.objectNode().put("memos", memos)));
    return run;
  }

  /**
   * An MCP call parked {@code input_required}: its server asked, with a form, for {@code name}
   * (string, required), {@code seats} (integer), {@code vip} (boolean) and {@code tier} (enum).
   */
  RunRef parkedForInput(String flow) {
    RunRef run =
        start(flow, Specs.named(flow, Specs.mcpCall("call", "forms", "ask", JSON.objectNode())));
    ClaimedAttempt a = claim(run, StepKind.AGENT);
    journal.recordEffect(a.lease(), McpCallInstruction.surface("forms", "ask"));
    ObjectNode schema = JSON.objectNode().put("type", "object");
    ObjectNode props = schema.putObject("properties");
    props.putObject("name").put("type", "string").put("title", "Guest name");
    props.putObject("seats").put("type", "integer").put("minimum", 1);
    props.putObject("vip").put("type", "boolean");
    props.putObject("tier").put("type", "string").putArray("enum").add("basic").add("gold");
    schema.putArray("required").add("name");
    ObjectNode request = JSON.objectNode().put("method", "elicitation/create");
    request
        .putObject("params")
        .put("mode", "form")
        .put("message", "Who is coming?")
        .set("requestedSchema", schema);
    ObjectNode tail = JSON.objectNode().put("type", "mcp").put("diagnostic", "input_required");
    tail.putObject(DurableInput.REQUESTS).set("who", request);
    tail.put(DurableInput.REQUEST_STATE, "state-1");
    journal.complete(
        a.lease(),
        new StepOutcome.Parked(CompletionReason.WORKER_ERROR, ErrorCode.INPUT_REQUIRED, tail));
    return run;
  }

  /**
   * An MCP call waiting for approval, as the worker parks one (nothing recorded, nothing sent):
   * {@code payments/refund} with {@code {"amount":12}}.
   */
  RunRef parkedForApproval(String flow) {
    RunRef run =
        start(
            flow,
            Specs.named(flow, Specs.mcpCall("call", "payments", "refund", JSON.objectNode())));
    ClaimedAttempt a = claim(run, StepKind.AGENT);
    ObjectNode request = JSON.objectNode().put("method", ToolApproval.METHOD);
    ObjectNode params = request.putObject("params").put("server", "payments").put("tool", "refund");
    params.putObject("arguments").put("amount", 12);
    ObjectNode tail = JSON.objectNode().put("type", "mcp").put("diagnostic", "input_required");
    tail.putObject(DurableInput.REQUESTS).set(ToolApproval.KEY, request);
    journal.complete(
        a.lease(),
        new StepOutcome.Parked(CompletionReason.WORKER_ERROR, ErrorCode.INPUT_REQUIRED, tail));
    return run;
  }

  private void memo(ClaimedAttempt a, String surface, ObjectNode memo) {
    journal.recordEffect(a.lease(), surface);
    journal.confirmEffect(a.lease(), surface, Optional.of(memo));
  }

  /** Claims {@code run}'s body once it is claimable (a timer's due time), within {@code max}. */
  ClaimedAttempt claimWithin(RunRef run, Duration max) throws InterruptedException {
    long until = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < until) {
      for (ClaimedAttempt a :
          journal.claim(new ClaimRequest(WORKER, Set.of(StepKind.AGENT), 1, LEASE))) {
        if (a.lease().runId().equals(run)) {
          return a;
        }
        journal.complete(a.lease(), new StepOutcome.Succeeded(JSON.nullNode()));
      }
      Thread.sleep(20);
    }
    throw new AssertionError("body of " + run + " never became claimable");
  }

  /**
   * A body whose child runs a grandchild that failed: answers {root, child, grandchild}; the root
   * and the child wait (suspended on the run below them).
   */
  RunRef[] treeWithAFailedLeaf(String flow) {
    RunRef root = start(flow, Specs.named(flow, Specs.agent("body", "/memo/*")));
    ClaimedAttempt r = claim(root, StepKind.AGENT);
    RunRef child = new RunRef(root.value() + "-c");
    journal.admit(
        new StartRun(
            Optional.of(child),
            child.value(),
            Specs.named("middle", Specs.agent("body", "/memo/*")),
            Optional.of(root),
            "api"),
        Admit.queued());
    journal.complete(r.lease(), new StepOutcome.Suspended(child, LEASE));
    ClaimedAttempt c = claim(child, StepKind.AGENT);
    RunRef leaf = new RunRef(root.value() + "-c-g");
    journal.admit(
        new StartRun(
            Optional.of(leaf),
            leaf.value(),
            Specs.named("leaf", Specs.command("a", "false")),
            Optional.of(child),
            "api"),
        Admit.queued());
    journal.complete(c.lease(), new StepOutcome.Suspended(leaf, LEASE));
    journal.complete(
        claim(leaf, StepKind.DETERMINISTIC).lease(),
        new StepOutcome.Failed(
            CompletionReason.WORKER_ERROR,
            JSON.objectNode().put("diagnostic", "disk_full"),
            false));
    return new RunRef[] {root, child, leaf};
  }
}
