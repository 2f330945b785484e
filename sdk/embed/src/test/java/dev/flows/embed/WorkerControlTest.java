package dev.flows.embed;

import static dev.flows.embed.TestFlows.JSON;
import static dev.flows.embed.TestFlows.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.sdk.FlowsError;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A worker its container starts and drains ({@code startLater}, {@link Flows#startWorker}, {@link
 * Flows#drainWorker}), the queues it serves, and what {@link Flows#health} says meanwhile.
 */
class WorkerControlTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aWorkerBuiltToStartLaterRunsNothingUntilItIsStarted() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("start_later");
    try (Flows flows =
        on(db)
            .register(new TestFlows.Shout())
            .worker(w -> w.pollInterval(Duration.ofMillis(50)).startLater())
            .build()) {
      assertThat(flows.workerState()).isEqualTo(FlowsHealth.Worker.NOT_STARTED);
      assertThat(flows.health().up()).isFalse();
      RunHandle<JsonNode> h =
          flows.start("shout", JSON.objectNode().put("text", "hi"), StartOptions.key("k1"));
      Thread.sleep(300);
      assertThat(h.state()).isEqualTo(RunState.RUNNING);

      flows.startWorker();
      flows.startWorker(); // once started, nothing more

      assertThat(h.result(WAIT).path("text").asText()).isEqualTo("HI");
      FlowsHealth health = flows.health();
      assertThat(health.worker()).isEqualTo(FlowsHealth.Worker.CLAIMING);
      assertThat(health.databaseReachable()).isTrue();
      assertThat(health.schemaCurrent()).isTrue();
      assertThat(health.up()).isTrue();
      assertThat(flows.workerCounts().completed()).isPositive();
    }
  }

  @Test
  void aDrainedWorkerLeavesTheInstanceOpenForStartsThatAnotherWorkerRuns() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("drain_worker");
    try (Flows drained =
            on(db)
                .register(new TestFlows.Shout())
                .worker(w -> w.pollInterval(Duration.ofMillis(50)))
                .build();
        Flows other =
            on(db)
                .register(new TestFlows.Shout())
                .worker(w -> w.pollInterval(Duration.ofMillis(50)).startLater())
                .build()) {
      drained.drainWorker();
      assertThat(drained.workerState()).isEqualTo(FlowsHealth.Worker.STOPPED);
      assertThat(drained.health().up()).isFalse();

      RunHandle<JsonNode> h =
          drained.start("shout", JSON.objectNode().put("text", "later"), StartOptions.key("k2"));
      other.startWorker();

      assertThat(h.result(WAIT).path("text").asText()).isEqualTo("LATER");
    }
  }

  @Test
  void aDrainedWorkerStartedAgainClaimsRunsAndAClosedInstanceRefusesToStartIt() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("restart_worker");
    Flows flows =
        on(db)
            .register(new TestFlows.Shout())
            .worker(w -> w.pollInterval(Duration.ofMillis(50)))
            .build();
    try (flows) {
      flows.drainWorker();
      RunHandle<JsonNode> queued =
          flows.start("shout", JSON.objectNode().put("text", "queued"), StartOptions.key("k5"));
      Thread.sleep(300);
      assertThat(queued.state()).isEqualTo(RunState.RUNNING);

      flows.startWorker();
      flows.startWorker(); // once started again, nothing more

      assertThat(flows.workerState()).isEqualTo(FlowsHealth.Worker.CLAIMING);
      assertThat(queued.result(WAIT).path("text").asText()).isEqualTo("QUEUED");
      assertThat(
              flows
                  .start("shout", JSON.objectNode().put("text", "again"), StartOptions.key("k6"))
                  .result(WAIT)
                  .path("text")
                  .asText())
          .isEqualTo("AGAIN");
      flows.drainWorker();
      flows.startWorker();
      assertThat(flows.workerState()).isEqualTo(FlowsHealth.Worker.CLAIMING);
    }
    assertThatThrownBy(flows::startWorker)
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire()));
  }

  @Test
  void aWorkerServingOtherQueuesLeavesTheDefaultQueueAlone() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("worker_queues");
    try (Flows flows =
        on(db)
            .register(new TestFlows.Shout())
            .worker(w -> w.pollInterval(Duration.ofMillis(50)).queues(Set.of("bulk")))
            .build()) {
      RunHandle<JsonNode> elsewhere =
          flows.start("shout", JSON.objectNode().put("text", "a"), StartOptions.key("k3"));
      RunHandle<JsonNode> bulk =
          flows.start(
              "shout", JSON.objectNode().put("text", "b"), StartOptions.key("k4").queue("bulk"));

      assertThat(bulk.result(WAIT).path("text").asText()).isEqualTo("B");
      assertThat(elsewhere.state()).isEqualTo(RunState.RUNNING);
    }
  }

  @Test
  void noQueueOrABadQueueNameIsRefused() {
    assertThatThrownBy(() -> Flows.builder().worker(w -> w.queues(Set.of())))
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire()));
    assertThatThrownBy(() -> Flows.builder().worker(w -> w.queues(Set.of("no spaces"))))
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire()));
  }
}
