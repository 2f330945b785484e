package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.sdk.ChildFailedException;
import java.time.Duration;
import java.util.List;

/** How a body learns that a child call did not return, or that its replay went another way. */
final class ChildReports {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private ChildReports() {}

  static ChildFailedException dispatchTimeout(Duration deadline, RunRef child, String call) {
    return new ChildFailedException(
        ErrorCode.DISPATCH_TIMEOUT.wire(),
        call
            + " was not picked up within "
            + deadline.toMillis()
            + " ms; the child run was cancelled",
        new dev.flows.sdk.RunId(child.value()),
        JSON.objectNode().put("call", call),
        false);
  }

  /** A child that failed or was canceled, as the body sees it; {@code call}: the call it made. */
  static ChildFailedException failed(Journal journal, RunRef child, RunSnapshot s, String call) {
    JsonNode tail = JSON.objectNode();
    CompletionReason reason = s.steps().getFirst().lastReason().orElse(CompletionReason.CANCELED);
    List<JournalRecord> entries = journal.entries(child);
    for (JournalRecord r : entries) {
      if (r.entry() instanceof JournalEntry.StepCompleted c && c.trajectoryTail().isPresent()) {
        tail = c.trajectoryTail().get();
      }
    }
    String code = tail.path("diagnostic").asText("");
    ErrorCode ec =
        ErrorCode.fromWire(code)
            .orElse(
                s.status() == dev.flows.kernel.lifecycle.RunStatus.CANCELED
                    ? ErrorCode.RUN_TERMINAL
                    : ErrorCode.FLOW_FAILED);
    String message = tail.path("message").asText(reason.wire());
    return new ChildFailedException(
        ec.wire(),
        call + " failed: " + message,
        new dev.flows.sdk.RunId(child.value()),
        tail,
        false);
  }

  static String cancelReason(Journal journal, RunRef child) {
    for (JournalRecord r : journal.entries(child)) {
      if (r.entry() instanceof JournalEntry.RunCancelRequested c) {
        return c.reason();
      }
    }
    return "cancelled";
  }

  /** How an MCP call child reads in messages: as the body wrote it. */
  static String mcpCall(McpCallInstruction c) {
    return "f.mcp(\"" + c.server() + "\").tool(\"" + c.tool() + "\").call(" + c.input() + ")";
  }

  /** Reads back {@link #nondeterministic}'s message: the position, the journaled call, the new. */
  static final java.util.regex.Pattern NONDETERMINISTIC =
      java.util.regex.Pattern.compile(
          "call #(\\d+) replayed differently: the journal has (.*), the body now makes (.*)$");

  static FlowsException nondeterministic(String flow, int pos, String journaled, String now) {
    return new FlowsException(
        ErrorCode.NONDETERMINISTIC_REPLAY,
        "call #"
            + pos
            + " replayed differently: the journal has "
            + journaled
            + ", the body now makes "
            + now,
        "flow " + flow + " call #" + pos,
        "keep the body deterministic between f calls (no clocks, randomness or I/O outside f.step)");
  }

  /** How a command call reads in messages: as the body wrote it, {@code f.sh} or {@code f.run}. */
  static String commandCall(List<String> argv, boolean shell) {
    return (shell ? "f.shell(" : "f.command(") + String.join(" ", argv) + ")";
  }

  /** How an MCP call reads in messages, as the body wrote it. */
  static String mcpCall(String server, String tool) {
    return "f.mcp(\"" + server + "\").tool(\"" + tool + "\")";
  }

  /** How the call that made child run {@code child} reads in messages. */
  static String describe(Journal journal, RunRef child) {
    return journal
        .run(child)
        .map(
            s -> {
              JsonNode step = s.spec().path("steps").path(0);
              JsonNode in = step.path("agent").path("instruction");
              if (in.path("type").asText().equals(FlowBodyInstruction.TYPE)) {
                return "f.flow(\""
                    + in.path("flow").asText()
                    + "\").call("
                    + step.path("input")
                    + ")";
              }
              if (in.isObject()) {
                return mcpCall(McpCallInstruction.fromJson(in));
              }
              JsonNode command = step.path("deterministic").path("command");
              if (command.isTextual()) {
                return commandCall(List.of(command.asText()), true);
              }
              List<String> argv = new java.util.ArrayList<>();
              command.forEach(a -> argv.add(a.asText()));
              return commandCall(argv, false);
            })
        .orElse("child " + child);
  }
}
