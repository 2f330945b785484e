package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A flow body sees only the public exception root: whatever the engine refuses or ends a call with
 * reaches the body as a {@link FlowsError} with the engine's code, message, place and fix, so an
 * author's {@code catch (FlowsError e)} catches it.
 */
class BodyErrorsTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final FlowResolver resolver = new FlowResolver();

  private static final RetryPolicy TWICE =
      RetryPolicy.attempts(2).backoff(Duration.ofMillis(1), 1.0, Duration.ofMillis(1));

  private JsonNode output(DurableFlowTest.TestFlow flow) throws Exception {
    RunRef root =
        DurableFlowTest.start(journal, resolver, flow, JSON.objectNode(), SdkConfig.DEFAULTS);
    MiniWorker w =
        new MiniWorker(journal, new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS));
    RunSnapshot done = DurableFlowTest.drive(journal, w, root, () -> false);
    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    return done.steps().getFirst().output().orElseThrow();
  }

  private static ObjectNode caught(FlowsError e) {
    ObjectNode o = JSON.objectNode().put("code", e.code()).put("message", e.getMessage());
    e.place().ifPresent(p -> o.put("place", p));
    e.fix().ifPresent(f -> o.put("fix", f));
    return o;
  }

  @Test
  void aBodyCatchesAStepThatRanOutOfRetriesAsAFlowsErrorWithTheEngineCode() throws Exception {
    JsonNode out =
        output(
            new DurableFlowTest.TestFlow(
                FlowHeader.named("exhausted").version("1").build(),
                (f, in) -> {
                  try {
                    f.step("flaky")
                        .retry(TWICE)
                        .call(
                            () -> {
                              throw new IllegalStateException("down");
                            });
                    return JSON.textNode("not thrown");
                  } catch (FlowsError e) {
                    return caught(e);
                  }
                }));

    assertThat(out.path("code").asText()).isEqualTo("retries_exhausted");
    assertThat(out.path("message").asText())
        .isEqualTo(
            "f.step(\"flaky\") failed all 2 attempts; the last: java.lang.IllegalStateException:"
                + " down");
    assertThat(out.path("place").asText()).isEqualTo("flow exhausted");
    assertThat(out.path("fix").asText()).startsWith("see the step's attempts");
  }

  @Test
  void aBodyCatchesTheEnginesRefusalOfACallAsAFlowsError() throws Exception {
    JsonNode out =
        output(
            new DurableFlowTest.TestFlow(
                FlowHeader.named("undeclared").version("1").build(),
                (f, in) -> {
                  try {
                    f.mcp("nowhere");
                    return JSON.textNode("not thrown");
                  } catch (FlowsError e) {
                    return caught(e);
                  }
                }));

    assertThat(out.path("code").asText()).isEqualTo("mcp_undeclared_server");
    assertThat(out.path("place").asText()).isEqualTo("flow undeclared");
  }

  @Test
  void aBodyCatchesARefusedSleepAndARefusedPolicyAsFlowsErrors() throws Exception {
    JsonNode out =
        output(
            new DurableFlowTest.TestFlow(
                FlowHeader.named("refusals").version("1").build(),
                (f, in) -> {
                  ObjectNode o = JSON.objectNode();
                  try {
                    f.sleep(Duration.ofSeconds(-1));
                  } catch (FlowsError e) {
                    o.set("sleep", caught(e));
                  }
                  try {
                    f.step("s").timeout(Duration.ZERO);
                  } catch (FlowsError e) {
                    o.set("timeout", caught(e));
                  }
                  try {
                    RetryPolicy.attempts(0);
                  } catch (FlowsError e) {
                    o.set("retry", caught(e));
                  }
                  return o;
                }));

    assertThat(out.at("/sleep/code").asText()).isEqualTo("invalid_input");
    assertThat(out.at("/timeout/code").asText()).isEqualTo("invalid_input");
    assertThat(out.at("/retry/code").asText()).isEqualTo("invalid_input");
    assertThat(out.at("/retry/message").asText())
        .isEqualTo("a retry policy needs at least 1 attempt, got 0");
  }

  @Test
  void anExhaustedStepTheBodyLetsThroughFailsTheRunWithTheEngineCode() throws Exception {
    RunRef root =
        DurableFlowTest.start(
            journal,
            resolver,
            new DurableFlowTest.TestFlow(
                FlowHeader.named("through").version("1").build(),
                (f, in) ->
                    f.step("flaky")
                        .retry(TWICE)
                        .call(
                            () -> {
                              throw new IllegalStateException("down");
                            })),
            JSON.objectNode(),
            SdkConfig.DEFAULTS);
    MiniWorker w =
        new MiniWorker(journal, new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS));
    RunSnapshot done = DurableFlowTest.drive(journal, w, root, () -> false);

    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    JsonNode tail = JSON.nullNode();
    for (var r : journal.entries(root)) {
      if (r.entry() instanceof JournalEntry.StepCompleted c && c.trajectoryTail().isPresent()) {
        tail = c.trajectoryTail().get();
      }
    }
    assertThat(tail.path("diagnostic").asText()).isEqualTo("retries_exhausted");
    assertThat(tail.path("place").asText()).isEqualTo("flow through");
  }

  @Test
  void aCallPolicyRefusedOutsideABodyIsAFlowsError() {
    FlowsError e =
        catchThrowableOfType(
            FlowsError.class, () -> CallPolicy.DEFAULT.withTimeout(Duration.ofSeconds(-1)));
    assertThat(e.code()).isEqualTo("invalid_input");
  }
}
