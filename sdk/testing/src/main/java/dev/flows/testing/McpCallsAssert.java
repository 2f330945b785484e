package dev.flows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.assertj.core.api.AbstractAssert;

/** Assertions on some MCP calls of a run (see {@link RunAssert#performed}). */
public final class McpCallsAssert extends AbstractAssert<McpCallsAssert, List<McpCall>> {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RunAssert run;
  private final String what;

  McpCallsAssert(RunAssert run, String what, List<McpCall> calls) {
    super(calls, McpCallsAssert.class);
    this.run = run;
    this.what = what;
  }

  public McpCallsAssert once() {
    return times(1);
  }

  public McpCallsAssert never() {
    return times(0);
  }

  public McpCallsAssert times(int n) {
    if (actual.size() != n) {
      failWithMessage("Expected %s %d time(s) but it was %d: %s", what, n, actual.size(), actual);
    }
    return this;
  }

  /** Every one of these calls had {@code args} (written as JSON) as its arguments. */
  public McpCallsAssert withArgs(Object args) {
    JsonNode want = JSON.valueToTree(args);
    if (actual.isEmpty()) {
      failWithMessage("Expected %s with %s but there was no such call", what, want);
    }
    for (McpCall c : actual) {
      if (!SameJson.same(c.args(), want)) {
        failWithMessage("Expected %s with %s but a call had %s", what, want, c.args());
      }
    }
    return this;
  }

  /** Back to the run, for more assertions on it. */
  public RunAssert and() {
    return run;
  }
}
