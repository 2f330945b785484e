package dev.flows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.embed.Flows;
import dev.flows.embed.RunInfo;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.RunId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one run did, read from the journal when {@link FlowsTestEnvironment#run} was called: its
 * state, its MCP calls, its signal waits, its child flows and its parked steps (each including the
 * runs under it where said). Read by {@link FlowsAssertions}.
 */
public final class RunRecord {
  /** The instruction type of a run that is one MCP call. */
  private static final String MCP = "mcp";

  /** The step of a flow run whose output is the flow's. */
  private static final String BODY = "body";

  private final RunInfo info;
  private final Optional<JsonNode> output;
  private final List<McpCall> calls;
  private final List<SignalWait> signals;
  private final List<RunRecord> children;
  private final List<ParkedStep> parked;

  private RunRecord(
      RunInfo info,
      Optional<JsonNode> output,
      List<McpCall> calls,
      List<SignalWait> signals,
      List<RunRecord> children,
      List<ParkedStep> parked) {
    this.info = info;
    this.output = output;
    this.calls = List.copyOf(calls);
    this.signals = List.copyOf(signals);
    this.children = List.copyOf(children);
    this.parked = List.copyOf(parked);
  }

  static RunRecord read(Journal journal, RunRef id, Flows flows) {
    RunInfo info = flows.handle(RunId.of(id.value())).snapshot();
    List<McpCall> calls = new ArrayList<>();
    List<RunRecord> children = new ArrayList<>();
    List<ParkedStep> parked = new ArrayList<>(parkedIn(journal, id));
    for (RunRef c : journal.children(id)) {
      List<JournalRecord> entries = journal.entries(c);
      Optional<JsonNode> call = mcpInstruction(entries);
      if (call.isPresent()) {
        calls.add(call(c, call.get(), entries));
        parked.addAll(parkedIn(journal, c));
      } else {
        RunRecord child = read(journal, c, flows);
        children.add(child);
        calls.addAll(child.mcpCalls());
        parked.addAll(child.parkedSteps());
      }
    }
    Optional<JsonNode> output =
        journal
            .run(id)
            .filter(s -> s.status() == RunStatus.SUCCEEDED)
            .flatMap(s -> s.step(BODY))
            .flatMap(StepSnapshot::output);
    return new RunRecord(info, output, calls, signals(journal.entries(id)), children, parked);
  }

  private static Optional<JsonNode> mcpInstruction(List<JournalRecord> entries) {
    for (JournalRecord r : entries) {
      if (r.entry() instanceof JournalEntry.RunSpawned s) {
        JsonNode instruction = s.spec().path("steps").path(0).path("agent").path("instruction");
        return instruction.path("type").asText().equals(MCP)
            ? Optional.of(instruction)
            : Optional.empty();
      }
    }
    return Optional.empty();
  }

  private static McpCall call(RunRef run, JsonNode instruction, List<JournalRecord> entries) {
    McpCall.Outcome outcome = McpCall.Outcome.NOT_SENT;
    Optional<JsonNode> result = Optional.empty();
    for (JournalRecord r : entries) {
      switch (r.entry()) {
        case JournalEntry.EffectConfirmed c when c.surfacePath().startsWith("/mcp/") -> {
          outcome = McpCall.Outcome.CONFIRMED;
          result = c.output().map(o -> o.path("output"));
        }
        case JournalEntry.EffectRecorded e when e.surfacePath().startsWith("/mcp/") -> {
          if (outcome == McpCall.Outcome.NOT_SENT) {
            outcome = McpCall.Outcome.UNKNOWN;
          }
        }
        default -> {}
      }
    }
    return new McpCall(
        RunId.of(run.value()),
        instruction.path("server").asText(),
        instruction.path("tool").asText(),
        instruction.path("input"),
        outcome,
        result);
  }

  private static List<SignalWait> signals(List<JournalRecord> entries) {
    List<SignalWait> found = new ArrayList<>();
    for (JournalRecord r : entries) {
      if (r.entry() instanceof JournalEntry.EffectConfirmed c
          && c.surfacePath().endsWith("/outcome")
          && c.output().isPresent()
          && c.output().get().has("signal")) {
        JsonNode o = c.output().get();
        found.add(
            new SignalWait(
                o.path("signal").asText(),
                o.path("timeout").asBoolean(false)
                    ? Optional.empty()
                    : Optional.of(o.path("payload"))));
      }
    }
    return found;
  }

  private static List<ParkedStep> parkedIn(Journal journal, RunRef id) {
    List<ParkedStep> found = new ArrayList<>();
    Optional<RunSnapshot> run = journal.run(id);
    if (run.isEmpty()) {
      return found;
    }
    List<JournalRecord> entries = journal.entries(id);
    for (StepSnapshot step : run.get().steps()) {
      if (step.status() == StepStatus.PARKED) {
        String reason =
            diagnostic(entries, step.stepId())
                .orElseGet(() -> step.lastReason().map(CompletionReason::wire).orElse(""));
        found.add(new ParkedStep(RunId.of(id.value()), step.stepId(), reason));
      }
    }
    return found;
  }

  /** The diagnostic code of the last attempt of {@code step} that left a trajectory tail. */
  private static Optional<String> diagnostic(List<JournalRecord> entries, String step) {
    Optional<String> code = Optional.empty();
    for (JournalRecord r : entries) {
      if (r.entry() instanceof JournalEntry.StepCompleted c
          && c.stepId().equals(step)
          && c.trajectoryTail().isPresent()
          && c.trajectoryTail().get().hasNonNull("diagnostic")) {
        code = Optional.of(c.trajectoryTail().get().path("diagnostic").asText());
      }
    }
    return code;
  }

  /** The run's state when read, as the embedding API answers it. */
  public RunInfo info() {
    return info;
  }

  /** The flow's output, once the run succeeded. */
  public Optional<JsonNode> output() {
    return output;
  }

  public RunId id() {
    return info.id();
  }

  /** Every MCP call of this run and of the child flows under it, in the order they began. */
  public List<McpCall> mcpCalls() {
    return calls;
  }

  /** This run's decided signal waits, in order. */
  public List<SignalWait> signalWaits() {
    return signals;
  }

  /** The child flows this run started (not its MCP calls), each read as this one. */
  public List<RunRecord> children() {
    return children;
  }

  /** The parked steps of this run, its MCP calls and the runs under it. */
  public List<ParkedStep> parkedSteps() {
    return parked;
  }

  @Override
  public String toString() {
    return "run " + info.id() + " (" + info.flow() + ", " + info.state() + ")";
  }
}
