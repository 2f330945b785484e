package dev.flows.ops;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
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
}
