package dev.flows.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.embed.RunState;
import java.util.List;
import org.assertj.core.api.AbstractAssert;

/** Assertions on a {@link RunRecord}: its end, its MCP calls, signals, children, parked steps. */
public final class RunAssert extends AbstractAssert<RunAssert, RunRecord> {
  private static final ObjectMapper JSON = new ObjectMapper();

  RunAssert(RunRecord actual) {
    super(actual, RunAssert.class);
  }

  public RunAssert succeeded() {
    return inState(RunState.SUCCEEDED);
  }

  public RunAssert failed() {
    return inState(RunState.FAILED);
  }

  /** The run is parked: it waits for an operator (e.g. a call whose outcome is unknown). */
  public RunAssert parked() {
    return inState(RunState.PARKED);
  }

  public RunAssert canceled() {
    return inState(RunState.CANCELED);
  }

  private RunAssert inState(RunState expected) {
    isNotNull();
    if (actual.info().state() != expected) {
      failWithMessage(
          "Expected %s to be %s but it is %s%s",
          actual,
          expected,
          actual.info().state(),
          actual
              .info()
              .completionReason()
              .or(() -> actual.info().waitingReason())
              .map(r -> " (" + r + ")")
              .orElse(""));
    }
    return this;
  }

  /** Its output (read as JSON) equals {@code expected} written as JSON. */
  public RunAssert hasOutput(Object expected) {
    isNotNull();
    var handle = actual.info();
    var want = JSON.valueToTree(expected);
    var got = actual.output();
    if (got.isEmpty() || !SameJson.same(got.get(), want)) {
      failWithMessage("Expected %s to answer %s but it answered %s", handle.id(), want, got);
    }
    return this;
  }

  /** The calls of {@code tool} on {@code server} the journal confirmed (the server answered). */
  public McpCallsAssert performed(String server, String tool) {
    isNotNull();
    return new McpCallsAssert(
        this, server + "/" + tool + " performed", calls(server, tool, McpCall.Outcome.CONFIRMED));
  }

  /** Every call of {@code tool} on {@code server} the run made, whatever its outcome. */
  public McpCallsAssert called(String server, String tool) {
    isNotNull();
    return new McpCallsAssert(
        this,
        server + "/" + tool + " called",
        actual.mcpCalls().stream()
            .filter(c -> c.server().equals(server) && c.tool().equals(tool))
            .toList());
  }

  /** The calls of {@code tool} on {@code server} whose outcome is unknown to the journal. */
  public McpCallsAssert withUnknownOutcome(String server, String tool) {
    isNotNull();
    return new McpCallsAssert(
        this,
        server + "/" + tool + " with unknown outcome",
        calls(server, tool, McpCall.Outcome.UNKNOWN));
  }

  private List<McpCall> calls(String server, String tool, McpCall.Outcome outcome) {
    return actual.mcpCalls().stream()
        .filter(c -> c.server().equals(server) && c.tool().equals(tool))
        .filter(c -> c.outcome() == outcome)
        .toList();
  }

  /**
   * A step of the run (or under it) is parked with {@code reason} (e.g. effect_outcome_unknown).
   */
  public RunAssert hasParkedStep(String reason) {
    isNotNull();
    if (actual.parkedSteps().stream().noneMatch(p -> p.reason().equals(reason))) {
      failWithMessage(
          "Expected a step of %s parked %s but the parked steps are %s",
          actual, reason, actual.parkedSteps());
    }
    return this;
  }

  /** The run took signal {@code name} with {@code payload} (written as JSON). */
  public RunAssert receivedSignal(String name, Object payload) {
    isNotNull();
    var want = JSON.valueToTree(payload);
    if (actual.signalWaits().stream()
        .noneMatch(
            s ->
                s.signal().equals(name)
                    && s.payload().map(p -> SameJson.same(p, want)).orElse(false))) {
      failWithMessage(
          "Expected %s to receive signal %s with %s but its signal waits are %s",
          actual, name, want, actual.signalWaits());
    }
    return this;
  }

  /** A wait of the run for signal {@code name} timed out. */
  public RunAssert timedOutWaitingFor(String name) {
    isNotNull();
    if (actual.signalWaits().stream().noneMatch(s -> s.signal().equals(name) && s.timedOut())) {
      failWithMessage(
          "Expected a wait of %s for signal %s to time out but its signal waits are %s",
          actual, name, actual.signalWaits());
    }
    return this;
  }

  /** The run started a child flow named {@code flow}: assertions on that child follow. */
  public RunAssert hasChild(String flow) {
    isNotNull();
    return actual.children().stream()
        .filter(c -> c.info().flow().equals(flow))
        .findFirst()
        .map(RunAssert::new)
        .orElseThrow(
            () ->
                new AssertionError(
                    "Expected "
                        + actual
                        + " to start a child flow "
                        + flow
                        + " but its children are "
                        + actual.children()));
  }
}
