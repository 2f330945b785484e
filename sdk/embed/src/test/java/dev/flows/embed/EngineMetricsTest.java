package dev.flows.embed;

import static dev.flows.embed.TestFlows.JSON;
import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A recorder of the service's own records the engine's metrics while it is installed. */
class EngineMetricsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Keeps the runs started and ended, and counts claims. */
  static final class Recorder implements EngineMetrics {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void runStarted(String flow) {
      events.add("started " + flow);
    }

    @Override
    public void runEnded(String flow, String status) {
      events.add("ended " + flow + " " + status);
    }

    @Override
    public void attemptCompleted(String reason) {}

    @Override
    public void leaseLost(String reason) {}

    @Override
    public void claimed(Duration took) {}

    @Override
    public void mcpCall(String server, String tool, Duration took, Optional<String> errorType) {}
  }

  @Test
  void theLastRecorderInstalledRecordsAndClosingItHandsTheMetricsBackToTheOneBefore()
      throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("embed_engine_metrics");
    Recorder first = new Recorder();
    Recorder second = new Recorder();
    try (Flows flows = withWorker(on(db)).register(new TestFlows.Shout()).migrate(true).build()) {
      try (EngineMetrics.Recording r1 = EngineMetrics.recordTo(first)) {
        try (EngineMetrics.Recording r2 = EngineMetrics.recordTo(second)) {
          shout(flows, second);
        }
        shout(flows, first);
      }
      flows.start("shout", JSON.objectNode().put("text", "c"), StartOptions.none()).result(WAIT);
    }

    // Counters, not an event log: a short run admitted with its end is counted ended by the worker
    // that ran it before its starter, answered after that end, counts it started.
    assertThat(second.events).containsExactlyInAnyOrder("started shout", "ended shout succeeded");
    assertThat(first.events).containsExactlyInAnyOrder("started shout", "ended shout succeeded");
  }

  /** Runs {@code shout} to its end, and waits until {@code recorder} counted the end too. */
  private static void shout(Flows flows, Recorder recorder) throws Exception {
    flows.start("shout", JSON.objectNode().put("text", "a"), StartOptions.none()).result(WAIT);
    // The end is counted by the completing worker, just after the journal took it.
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (recorder.events.size() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }
}
