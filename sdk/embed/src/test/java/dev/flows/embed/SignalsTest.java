package dev.flows.embed;

import static dev.flows.embed.TestFlows.JSON;
import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Durable waits through the embedding API, on Postgres: signals by handle, and a short timer. */
class SignalsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private TestDatabase.Fresh db;

  @BeforeEach
  void freshDatabase() {
    db = TestDatabase.fresh("signals");
  }

  /** Waits for two signals {@code approve}, each at most {@code input.seconds}. */
  static final class TwoApprovals implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("two-approvals").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      Duration timeout = Duration.ofSeconds(input.path("seconds").asLong(3600));
      var out = JSON.arrayNode();
      out.add(f.awaitSignal("approve", timeout).orElse(JSON.textNode("timeout")));
      out.add(f.awaitSignal("approve", timeout).orElse(JSON.textNode("timeout")));
      return out;
    }
  }

  /** Sleeps {@code input.ms} and answers when it woke, by its journaled clock. */
  static final class Nap implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("nap").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      Instant before = f.now();
      f.sleep(Duration.ofMillis(input.path("ms").asLong()));
      Instant after = f.now();
      return JSON.objectNode().put("before", before.toString()).put("after", after.toString());
    }
  }

  @Test
  void aSignalSentDuringTheWaitIsAnsweredAndOneSentTwiceWithAKeyIsDeliveredOnce() throws Exception {
    try (Flows flows = withWorker(on(db).register(new TwoApprovals())).build()) {
      RunHandle<JsonNode> h =
          flows.start(
              TwoApprovals.class, TestFlows.json(Map.of("seconds", 2)), StartOptions.key("a1"));
      long until = System.nanoTime() + WAIT.toNanos();
      while (flows.journal().run(Boundary.ref(h.runId())).orElseThrow().steps().getFirst().status()
          != StepStatus.READY) {
        assertThat(System.nanoTime()).as("the body suspended on its wait").isLessThan(until);
        Thread.sleep(20);
      }

      SignalReceipt first = h.signal("approve", Map.of("by", "ann"), Optional.of("ticket-7"));
      SignalReceipt again = h.signal("approve", Map.of("by", "bob"), Optional.of("ticket-7"));

      assertThat(first.deduped()).isFalse();
      assertThat(again.deduped()).isTrue();
      assertThat(h.result(WAIT))
          .isEqualTo(JSON.arrayNode().add(JSON.objectNode().put("by", "ann")).add("timeout"));
    }
  }

  @Test
  void aSignalToAnEndedRunIsRefusedRunTerminal() throws Exception {
    try (Flows flows = withWorker(on(db).register(new TwoApprovals())).build()) {
      RunHandle<JsonNode> h =
          flows.start(
              TwoApprovals.class, TestFlows.json(Map.of("seconds", 3600)), StartOptions.key("a2"));
      h.signal("approve", "one");
      h.signal("approve", "two");
      assertThat(h.result(WAIT)).isEqualTo(JSON.arrayNode().add("one").add("two"));

      FlowsError e = catchThrowableOfType(FlowsError.class, () -> h.signal("approve", 3));
      assertThat(e.code()).isEqualTo(ErrorCode.RUN_TERMINAL.wire());
    }
  }

  @Test
  void aSleepingRunResumesAtOrAfterItsDueTime() throws Exception {
    try (Flows flows = withWorker(on(db).register(new Nap())).build()) {
      RunHandle<JsonNode> h =
          flows.start(Nap.class, TestFlows.json(Map.of("ms", 1500)), StartOptions.key("n1"));
      JsonNode out = h.result(WAIT);
      Instant before = Instant.parse(out.path("before").asText());
      Instant after = Instant.parse(out.path("after").asText());
      assertThat(Duration.between(before, after)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
      assertThat(h.state()).isEqualTo(RunState.SUCCEEDED);
      assertThat(
              flows
                  .journal()
                  .run(Boundary.ref(h.runId()))
                  .orElseThrow()
                  .steps()
                  .getFirst()
                  .attempts())
          .isEqualTo(2);
    }
  }
}
