package dev.flows.embed;

import static dev.flows.embed.TestFlows.JSON;
import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.RunId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Starting runs and waiting for their ends through {@link Flows} and {@link RunHandle}. */
class FlowsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private TestDatabase.Fresh db;

  @BeforeEach
  void freshDatabase() {
    db = TestDatabase.fresh("embed");
  }

  @Test
  void aStartedRunAnswersItsOutputThroughItsHandle() throws Exception {
    try (Flows flows =
        withWorker(on(db).register(new TestFlows.Shout()).register(new TestFlows.TypedShout()))
            .build()) {
      RunHandle<JsonNode> h =
          flows.start(
              TestFlows.Shout.class, JSON.objectNode().put("text", "hi"), StartOptions.key("k1"));

      assertThat(h.created()).isTrue();
      assertThat(h.result(WAIT).path("text").asText()).isEqualTo("HI");
      assertThat(h.state()).isEqualTo(RunState.SUCCEEDED);
      RunHandle<TestFlows.Shouted> typed =
          flows.start(
              TestFlows.TypedShout.class, new TestFlows.Words("yo"), StartOptions.key("k2"));
      assertThat(typed.result(WAIT)).isEqualTo(new TestFlows.Shouted("YO"));
    }
  }

  @Test
  void startingTwiceWithOneKeyFindsTheSameRunAndAnotherKeyStartsAnother() throws Exception {
    try (Flows flows = withWorker(on(db).register(new TestFlows.Shout())).build()) {
      JsonNode in = JSON.objectNode().put("text", "once");
      RunHandle<JsonNode> first =
          flows.start(TestFlows.Shout.class, in, StartOptions.key("order-42"));
      RunHandle<JsonNode> again =
          flows.start(TestFlows.Shout.class, in, StartOptions.key("order-42"));
      RunHandle<JsonNode> other =
          flows.start(TestFlows.Shout.class, in, StartOptions.key("order-43"));

      assertThat(again.runId()).isEqualTo(first.runId());
      assertThat(first.created()).isTrue();
      assertThat(again.created()).isFalse();
      assertThat(other.runId()).isNotEqualTo(first.runId());
      assertThat(again.result(WAIT)).isEqualTo(first.result(WAIT));
    }
  }

  @Test
  void aFailedRunThrowsRunFailedExceptionWithItsDiagnostic() {
    try (Flows flows = withWorker(on(db).register(new TestFlows.Boom())).build()) {
      RunHandle<JsonNode> h =
          flows.start(
              TestFlows.Boom.class, TestFlows.json(Map.of("order", "o-7")), StartOptions.key("b"));

      RunFailedException e = catchThrowableOfType(RunFailedException.class, () -> h.result(WAIT));
      assertThat(e.code()).isEqualTo(ErrorCode.FLOW_FAILED.wire());
      assertThat(e.runId()).isEqualTo(h.runId());
      assertThat(e.stepId()).contains("body");
      assertThat(e.getMessage()).contains("no stock for o-7");
      assertThat(e.diagnostic().path("diagnostic").asText()).isEqualTo("flow_failed");
      assertThat(h.state()).isEqualTo(RunState.FAILED);
    }
  }

  @Test
  void aFlowsErrorABodyThrowsFailsTheRunWithItsCodeAndAnUnknownCodeAsFlowFailed() {
    try (Flows flows = withWorker(on(db).register(new TestFlows.Refuses())).build()) {
      RunHandle<JsonNode> known =
          flows.start(
              TestFlows.Refuses.class,
              TestFlows.json(Map.of("code", "invalid_input")),
              StartOptions.key("known"));
      RunHandle<JsonNode> unknown =
          flows.start(
              TestFlows.Refuses.class,
              TestFlows.json(Map.of("code", "order_closed")),
              StartOptions.key("unknown"));

      RunFailedException e =
          catchThrowableOfType(RunFailedException.class, () -> known.result(WAIT));
      assertThat(e.code()).isEqualTo("invalid_input");
      assertThat(e.diagnostic().path("place").asText()).isEqualTo("order o-7");
      assertThat(e.diagnostic().path("fix").asText()).isEqualTo("open it");
      RunFailedException u =
          catchThrowableOfType(RunFailedException.class, () -> unknown.result(WAIT));
      assertThat(u.code()).isEqualTo("flow_failed");
      assertThat(u.getMessage()).contains("the order is closed");
    }
  }

  @Test
  void aRunParkedOnACallOfUnknownOutcomeThrowsRunParkedExceptionNamingTheCall() {
    try (Flows flows =
        withWorker(
                on(db)
                    .register(new TestFlows.Fragile())
                    .mcpServer(McpServer.of(Jvm.stdioServer("fragile", List.of(), Map.of()))))
            .build()) {
      RunHandle<JsonNode> h =
          flows.start(TestFlows.Fragile.class, TestFlows.json(Map.of()), StartOptions.key("p"));

      RunParkedException e = catchThrowableOfType(RunParkedException.class, () -> h.result(WAIT));
      assertThat(e.code()).isEqualTo(ErrorCode.EFFECT_OUTCOME_UNKNOWN.wire());
      assertThat(e.runId()).isEqualTo(h.runId());
      assertThat(flows.journal().children(Boundary.ref(h.runId())))
          .containsExactly(Boundary.ref(e.parkedRun()));
      assertThat(e.stepId()).isEqualTo("call");
      assertThat(e.diagnostic().path("server").asText()).isEqualTo("fragile");
      assertThat(e.diagnostic().path("tool").asText()).isEqualTo("die");
      assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("flows runs resolve"));
      assertThat(h.state()).isEqualTo(RunState.PARKED);
    }
  }

  @Test
  void aCanceledRunThrowsRunCanceledExceptionWithTheReason() {
    try (Flows flows = on(db).register(new TestFlows.Shout()).build()) {
      RunHandle<JsonNode> h =
          flows.start(
              TestFlows.Shout.class, TestFlows.json(Map.of("text", "x")), StartOptions.key("c"));
      h.cancel("the customer withdrew");

      RunCanceledException e =
          catchThrowableOfType(RunCanceledException.class, () -> h.result(WAIT));
      assertThat(e.code()).isEqualTo(ErrorCode.RUN_CANCELED.wire());
      assertThat(e.reason()).isEqualTo("the customer withdrew");
      assertThat(h.state()).isEqualTo(RunState.CANCELED);
    }
  }

  @Test
  void aRunThatDoesNotEndInTimeThrowsResultTimeoutExceptionAndGoesOn() {
    // No worker anywhere: the run cannot end.
    try (Flows flows = on(db).register(new TestFlows.Shout()).build()) {
      RunHandle<JsonNode> h =
          flows.start(
              TestFlows.Shout.class, TestFlows.json(Map.of("text", "x")), StartOptions.key("t"));
      long began = System.nanoTime();

      ResultTimeoutException e =
          catchThrowableOfType(
              ResultTimeoutException.class, () -> h.result(Duration.ofMillis(300)));
      assertThat(Duration.ofNanos(System.nanoTime() - began))
          .isGreaterThanOrEqualTo(Duration.ofMillis(300));
      assertThat(e.code()).isEqualTo(ErrorCode.RESULT_TIMEOUT.wire());
      assertThat(e.retryable()).isTrue();
      assertThat(h.state()).isEqualTo(RunState.RUNNING);
    }
  }

  @Test
  void aSecondFlowsWithNoWorkerAndNoFlowsReattachesByIdAndGetsTheResult() throws Exception {
    String runId;
    try (Flows starter = on(db).register(new TestFlows.Shout()).build()) {
      runId =
          starter
              .start(
                  TestFlows.Shout.class,
                  TestFlows.json(Map.of("text", "far")),
                  StartOptions.key("r"))
              .runId()
              .value();
    }
    try (Flows waiter = on(db).build()) {
      RunHandle<JsonNode> h = waiter.handle(RunId.of(runId));
      assertThat(h.created()).isFalse();
      // Waits before any worker exists; the worker of another instance ends the run.
      CompletableFuture<JsonNode> out =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return h.result(WAIT);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      try (Flows worker = withWorker(on(db).register(new TestFlows.Shout())).build()) {
        assertThat(out.get().path("text").asText()).isEqualTo("FAR");
      }
      assertThat(waiter.handle(RunId.of(runId), TestFlows.Shouted.class).result(WAIT).text())
          .isEqualTo("FAR");
    }
  }

  @Test
  void aHandleOnARunTheJournalLacksIsRefusedRunNotFound() {
    try (Flows flows = on(db).build()) {
      assertThatThrownBy(() -> flows.handle(RunId.of("run_nobody")))
          .isInstanceOfSatisfying(
              FlowsError.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.RUN_NOT_FOUND.wire()));
    }
  }

  @Test
  void startingAFlowThatWasNotRegisteredIsRefusedFlowNotFound() {
    try (Flows flows = on(db).build()) {
      assertThatThrownBy(
              () ->
                  flows.start(
                      TestFlows.Shout.class, TestFlows.json(Map.of()), StartOptions.key("x")))
          .isInstanceOfSatisfying(
              FlowsError.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.FLOW_NOT_FOUND.wire()));
    }
  }
}
