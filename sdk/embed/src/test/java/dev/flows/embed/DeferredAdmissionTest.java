package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A start without a key, in a process whose worker has a free slot, runs the body before the run is
 * admitted: a body that ends in success within {@code SdkConfig.memoDelay} is admitted with its end
 * in one transaction; a longer one, or one that fails, is admitted first, and start answers only
 * once the run is admitted.
 */
class DeferredAdmissionTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private TestDatabase.Fresh db;

  @BeforeEach
  void database() {
    db = TestDatabase.fresh("embed_deferred");
  }

  @Test
  void aKeylessStartWhoseBodyEndsAtOnceIsAdmittedWithItsEndInOneTransaction() throws Exception {
    try (Flows flows = quietWorker()) {
      for (int i = 0; i < 5; i++) {
        RunHandle<JsonNode> h =
            flows.start(TestFlows.Shout.class, TestFlows.json(Map.of("text", "hi" + i)));
        assertThat(h.result(WAIT).path("text").asText()).isEqualTo("HI" + i);
        assertThat(types(flows, Boundary.ref(h.runId())))
            .containsExactly(
                "run.spawned",
                "step.attempt.started",
                "effect.recorded",
                "effect.confirmed",
                "step.completed",
                "run.completed");
        assertThat(transactions(Boundary.ref(h.runId())))
            .as("transactions that wrote run %d", i)
            .isEqualTo(1);
      }
    }
  }

  @Test
  void aStartWithAKeyIsAdmittedBeforeItsBodyRuns() throws Exception {
    try (Flows flows = quietWorker()) {
      RunHandle<JsonNode> h =
          flows.start(
              TestFlows.Shout.class, TestFlows.json(Map.of("text", "k")), StartOptions.key("k1"));
      assertThat(h.result(WAIT).path("text").asText()).isEqualTo("K");
      assertThat(transactions(Boundary.ref(h.runId()))).isEqualTo(2);
      assertThat(
              flows
                  .start(
                      TestFlows.Shout.class,
                      TestFlows.json(Map.of("text", "k")),
                      StartOptions.key("k1"))
                  .runId())
          .isEqualTo(h.runId());
    }
  }

  @Test
  void aBodyStillRunningPastTheDelayHasItsRunAdmittedBeforeStartAnswers() throws Exception {
    TestFlows.Blocker.hold = true;
    TestFlows.Blocker.started = new CountDownLatch(1);
    try (Flows flows =
        TestFlows.on(db)
            .register(new TestFlows.Blocker())
            .register(new TestFlows.Shout())
            .worker(w -> w.capacity(4).stopGrace(Duration.ofMillis(100)))
            .build()) {
      RunHandle<JsonNode> h = flows.start(TestFlows.Blocker.class, TestFlows.json(Map.of()));
      // Answered while the body still blocks: the run is in the journal, its attempt running.
      assertThat(TestFlows.Blocker.started.await(60, TimeUnit.SECONDS)).isTrue();
      var run = flows.journal().run(Boundary.ref(h.runId())).orElseThrow();
      assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
      assertThat(run.steps().getFirst().status()).isEqualTo(StepStatus.RUNNING);
    } finally {
      TestFlows.Blocker.hold = false;
    }
  }

  /** Makes {@code n} steps, then waits for {@link #release}. */
  static final class Many implements dev.flows.sdk.Flow<JsonNode, JsonNode> {
    static volatile CountDownLatch release = new CountDownLatch(1);

    @Override
    public dev.flows.sdk.FlowHeader header() {
      return dev.flows.sdk.FlowHeader.named("many").build();
    }

    @Override
    public JsonNode run(dev.flows.sdk.Ctx f, JsonNode input) throws InterruptedException {
      for (int i = 0; i < input.path("n").asInt(); i++) {
        int v = i;
        f.step("s" + i, () -> v);
      }
      release.await();
      return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    }
  }

  @Test
  void aBodyThatMakesMoreMemosThanItsEndCouldCarryHasItsRunAdmittedWithoutWaitingOutTheDelay()
      throws Exception {
    Many.release = new CountDownLatch(1);
    try (Flows flows =
        TestFlows.on(db)
            .register(new Many())
            .sdkConfig(
                dev.flows.sdk.runtime.SdkConfig.DEFAULTS.toBuilder()
                    .memoDelay(Duration.ofMinutes(2))
                    .build())
            .worker(w -> w.capacity(4).stopGrace(Duration.ofMillis(100)))
            .build()) {
      long t0 = System.nanoTime();
      RunHandle<JsonNode> h = flows.start(Many.class, TestFlows.json(Map.of("n", 100)));
      // Admitted once the 65th memo was handed over, not two minutes after the body started.
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(60));
      assertThat(flows.journal().run(Boundary.ref(h.runId())).orElseThrow().status())
          .isEqualTo(RunStatus.RUNNING);
      Many.release.countDown();
      h.result(WAIT);
    } finally {
      Many.release.countDown();
    }
  }

  @Test
  void aBodyThatFailsAtOnceLeavesItsRunFailedWithItsFailureJournaled() throws Exception {
    try (Flows flows = quietWorker()) {
      RunHandle<JsonNode> h =
          flows.start(TestFlows.Boom.class, TestFlows.json(Map.of("order", "o-1")));
      assertThatThrownBy(() -> h.result(WAIT))
          .isInstanceOf(RunFailedException.class)
          .hasMessageContaining("no stock for o-1");
      assertThat(flows.journal().run(Boundary.ref(h.runId())).orElseThrow().status())
          .isEqualTo(RunStatus.FAILED);
      assertThat(types(flows, Boundary.ref(h.runId())))
          .startsWith("run.spawned", "step.attempt.started");
    }
  }

  /**
   * A worker whose timer-driven polls are far apart, past its first claim: a poll in flight holds
   * the free slots it claims with, and a start meanwhile could find none.
   */
  private Flows quietWorker() throws InterruptedException {
    Flows flows =
        TestFlows.on(db)
            .register(new TestFlows.Shout())
            .register(new TestFlows.Boom())
            .worker(w -> w.capacity(4).pollInterval(Duration.ofMinutes(10)))
            .build();
    flows
        .start(
            TestFlows.Shout.class,
            TestFlows.json(Map.of("text", "warm-up")),
            StartOptions.key("warm-up"))
        .result(WAIT);
    return flows;
  }

  private static List<String> types(Flows flows, RunRef run) {
    return flows.journal().entries(run).stream()
        .map(JournalRecord::entry)
        .map(e -> e.type())
        .toList();
  }

  /** How many transactions wrote the run's row, steps and entries (their distinct xmin). */
  private int transactions(RunRef run) throws Exception {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(DISTINCT x) FROM ("
                    + " SELECT xmin::text AS x FROM flows.runs WHERE run_id = ?"
                    + " UNION ALL SELECT xmin::text FROM flows.steps WHERE run_id = ?"
                    + " UNION ALL SELECT xmin::text FROM flows.journal_entries WHERE run_id = ?"
                    + ") t")) {
      for (int i = 1; i <= 3; i++) {
        ps.setString(i, run.value());
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }
}
