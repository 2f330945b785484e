package dev.flows.embed;

import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The typed public API on Postgres: a flow taking and answering records, its typed step and signal,
 * starts by class and by name with {@link StartOptions}, and the run search of {@link Flows#runs}.
 */
class TypedFlowsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private TestDatabase.Fresh db;

  @BeforeEach
  void freshDatabase() {
    db = TestDatabase.fresh("typed");
  }

  record Order(String id, long amountCents) {}

  record Approval(boolean approved, String by) {}

  record Receipt(String order, long amountCents, String approvedBy) {}

  /** Waits for a typed approval, then answers a typed receipt with a typed step's result. */
  static final class Approve implements Flow<Order, Receipt> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("approve-order").build();
    }

    @Override
    public Receipt run(Ctx f, Order order) {
      Optional<Approval> a = f.awaitSignal("approve", Approval.class, Duration.ofHours(1));
      long cents = f.step("total", Long.class, () -> order.amountCents() + 1);
      return new Receipt(
          order.id(), cents, a.filter(Approval::approved).map(Approval::by).orElse("-"));
    }
  }

  @Test
  void aTypedFlowTakesARecordAndAnswersOneThroughATypedStepAndSignal() throws Exception {
    try (Flows flows = withWorker(on(db).register(new Approve())).build()) {
      RunHandle<Receipt> h =
          flows.start(Approve.class, new Order("o-1", 100), StartOptions.key("o-1"));
      h.signal("approve", new Approval(true, "ann"));

      assertThat(h.result(WAIT)).isEqualTo(new Receipt("o-1", 101, "ann"));
      assertThat(h.state()).isEqualTo(RunState.SUCCEEDED);
      RunHandle<Receipt> again =
          flows.start(Approve.class, new Order("o-1", 100), StartOptions.key("o-1"));
      assertThat(again.runId()).isEqualTo(h.runId());
      assertThat(again.created()).isFalse();
    }
  }

  @Test
  void aRunStartedByItsFlowNameAnswersJsonAndAnUnknownNameIsRefused() throws Exception {
    try (Flows flows = withWorker(on(db).register(new Approve())).build()) {
      RunHandle<JsonNode> h =
          flows.start(
              "approve-order",
              new Order("o-2", 5),
              StartOptions.key("o-2").queue(dev.flows.kernel.journal.Queues.DEFAULT));
      h.signal("approve", new Approval(false, "bob"));

      assertThat(h.result(WAIT).path("approvedBy").asText()).isEqualTo("-");
      assertThat(h.snapshot().admissionKey()).isEqualTo("flow:approve-order:o-2");
      assertThatThrownBy(() -> flows.start("nobody", new Order("x", 1), StartOptions.none()))
          .isInstanceOfSatisfying(
              FlowsError.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.FLOW_NOT_FOUND.wire()));
    }
  }

  @Test
  void aRunOnAnotherQueueIsLeftForTheWorkersServingIt() throws Exception {
    try (Flows flows = withWorker(on(db).register(new TestFlows.TypedShout())).build()) {
      RunHandle<TestFlows.Shouted> h =
          flows.start(
              TestFlows.TypedShout.class,
              new TestFlows.Words("q"),
              StartOptions.key("q").queue("elsewhere"));

      assertThat(h.snapshot().queue()).isEqualTo("elsewhere");
      Thread.sleep(500);
      assertThat(h.state()).isEqualTo(RunState.RUNNING);
    }
  }

  @Test
  void runsAreListedNewestFirstByNameStateAndTimeAndPagedWithoutRepeats() throws Exception {
    try (Flows flows =
        withWorker(on(db).register(new TestFlows.TypedShout()).register(new TestFlows.Shout()))
            .build()) {
      Instant before = Instant.now().minusSeconds(60);
      for (int i = 0; i < 5; i++) {
        flows
            .start(
                TestFlows.TypedShout.class, new TestFlows.Words("t" + i), StartOptions.key("t" + i))
            .result(WAIT);
      }
      flows
          .start(TestFlows.Shout.class, TestFlows.json(java.util.Map.of("text", "s")))
          .result(WAIT);

      List<RunInfo> shouts = flows.runs().named("typed-shout").list(10);
      assertThat(shouts).hasSize(5).allMatch(r -> r.state() == RunState.SUCCEEDED);
      assertThat(shouts.getFirst().admissionKey()).isEqualTo("flow:typed-shout:t4");
      assertThat(shouts)
          .extracting(RunInfo::createdAt)
          .isSortedAccordingTo(java.util.Comparator.reverseOrder());

      List<RunInfo> page1 = flows.runs().named("typed-shout").list(2);
      List<RunInfo> page2 = flows.runs().named("typed-shout").after(page1.getLast()).list(2);
      List<RunInfo> page3 = flows.runs().named("typed-shout").after(page2.getLast()).list(2);
      assertThat(concat(page1, page2, page3)).isEqualTo(shouts);

      assertThat(flows.runs().state(RunState.FAILED).list(10)).isEmpty();
      assertThat(flows.runs().createdAfter(before).list(10)).hasSize(6);
      assertThat(flows.runs().createdAfter(Instant.now().plusSeconds(60)).list(10)).isEmpty();
      assertThatThrownBy(() -> flows.runs().list(0))
          .isInstanceOfSatisfying(
              FlowsError.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT.wire()));
    }
  }

  @SafeVarargs
  private static List<RunInfo> concat(List<RunInfo>... pages) {
    return java.util.Arrays.stream(pages).flatMap(List::stream).toList();
  }
}
