package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A worker's step output limit as a body meets it: an {@code f.step} value past it fails that step
 * {@code payload_too_large} (the body catches it as any step failure), a body's output past it
 * fails the run, and a run input past the journal's limit is refused before the body ever runs.
 */
class PayloadLimitsBodyTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final String BIG = "z".repeat(5000);
  private final InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());

  private FlowsEngine engine(Flow flow) {
    FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder()
                .pollInterval(Duration.ofMillis(50))
                .payloadLimits(
                    PayloadLimits.DEFAULTS.withMaxStepOutputBytes(PayloadLimits.MIN_BYTES))
                .build(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment());
    engine.register(flow);
    engine.startWorker();
    return engine;
  }

  private static RunRef start(FlowsEngine engine, Flow flow, JsonNode input) {
    return engine
        .admit(
            new LoadedFlow(
                flow,
                new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
                Set.of(),
                Path.of(".")),
            input,
            Optional.empty(),
            Inventory.empty())
        .runId();
  }

  private String journaled(RunRef run) {
    List<JournalRecord> entries = journal.entries(run);
    return String.valueOf(entries);
  }

  @Test
  void anFStepValuePastTheWorkersOutputLimitFailsThatStepAndTheBodyCatchesPayloadTooLarge()
      throws Exception {
    Flow flow =
        new DurableFlowTest.TestFlow(
            FlowHeader.named("big-step").version("1").build(),
            (f, in) -> {
              try {
                f.step("big").call(() -> BIG);
                return JSON.textNode("not thrown");
              } catch (FlowsError e) {
                return JSON.objectNode().put("code", e.code()).put("message", e.getMessage());
              }
            });
    try (FlowsEngine engine = engine(flow)) {
      RunRef run = start(engine, flow, JSON.objectNode());
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, run);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = done.steps().getFirst().output().orElseThrow();
      assertThat(out.path("code").asText()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE.wire());
      assertThat(out.path("message").asText()).contains("maxStepOutputBytes").contains("4096");
      assertThat(journaled(run)).as("nothing of the value is journaled").doesNotContain(BIG);
    }
  }

  @Test
  void aBodyOutputPastTheWorkersOutputLimitFailsTheRunPayloadTooLarge() throws Exception {
    Flow flow =
        new DurableFlowTest.TestFlow(
            FlowHeader.named("big-output").version("1").build(), (f, in) -> JSON.textNode(BIG));
    try (FlowsEngine engine = engine(flow)) {
      RunRef run = start(engine, flow, JSON.objectNode());
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, run);

      assertThat(done.status()).isEqualTo(RunStatus.FAILED);
      JournalEntry.StepCompleted end =
          journal.entries(run).stream()
              .map(JournalRecord::entry)
              .filter(JournalEntry.StepCompleted.class::isInstance)
              .map(JournalEntry.StepCompleted.class::cast)
              .reduce((a, b) -> b)
              .orElseThrow();
      assertThat(end.trajectoryTail().orElseThrow().path("diagnostic").asText())
          .isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE.wire());
      assertThat(journaled(run)).doesNotContain(BIG);
    }
  }

  @Test
  void aRunInputPastTheJournalsLimitIsRefusedBeforeTheBodyRuns() {
    AtomicBoolean ran = new AtomicBoolean();
    Flow flow =
        new DurableFlowTest.TestFlow(
            FlowHeader.named("big-input").version("1").build(),
            (f, in) -> {
              ran.set(true);
              return JSON.nullNode();
            });
    JsonNode input =
        JSON.objectNode().put("blob", "i".repeat((int) PayloadLimits.DEFAULT_MAX_BYTES));
    try (FlowsEngine engine = engine(flow)) {
      assertThatThrownBy(() -> start(engine, flow, input))
          .isInstanceOf(FlowsException.class)
          .satisfies(
              e -> {
                FlowsException f = (FlowsException) e;
                assertThat(f.code()).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);
                assertThat(f.getMessage()).contains("maxRunInputBytes");
              });
    }
    assertThat(ran).isFalse();
  }
}
