package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.StepKind;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.Pending;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Replays of bodies that issue calls without waiting, on Postgres. */
class ParallelReplayTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static String url;
  private static PostgresJournal journal;
  private final FlowResolver resolver = new FlowResolver();

  @BeforeAll
  static void db() {
    url = TestDatabase.fresh("parallel_replay").jdbcUrl();
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  private RunRef start(DurableFlowTest.TestFlow.Body body) {
    DurableFlowTest.TestFlow flow =
        new DurableFlowTest.TestFlow(
            FlowHeader.named("parallel" + System.nanoTime()).mcp("tickets").build(), body);
    resolver.register(flow);
    return journal
        .admit(
            StartRun.of(
                "parallel-" + System.nanoTime(),
                Lowering.root(
                    flow.header(),
                    new FlowBodyInstruction.Origin.ClassFlow("parallel"),
                    JSON.objectNode(),
                    DurableFlowTest.inventory(),
                    SdkConfig.DEFAULTS)),
            Admit.queued())
        .runId();
  }

  private static JsonNode lastTail(RunRef run) {
    JsonNode tail = JSON.objectNode();
    for (var r : journal.entries(run)) {
      if (r.entry() instanceof JournalEntry.StepCompleted c && c.trajectoryTail().isPresent()) {
        tail = c.trajectoryTail().get();
      }
    }
    return tail;
  }

  @Test
  void swappingTwoCallAsyncCallsInTheBodyBetweenAttemptsIsRefusedNondeterministic()
      throws Exception {
    CountDownLatch issued = new CountDownLatch(1);
    AtomicInteger attempts = new AtomicInteger();
    RunRef root =
        start(
            (f, in) -> {
              boolean first = attempts.incrementAndGet() == 1;
              var classify = f.mcp("tickets").tool("classify");
              var create = f.mcp("tickets").tool("create");
              Pending<?> a = (first ? classify : create).callAsync(Map.of("n", 1));
              Pending<?> b = (first ? create : classify).callAsync(Map.of("n", 1));
              f.all(a, b);
              if (first) {
                issued.countDown();
                new CountDownLatch(1).await(); // the worker dies here
              }
              return JSON.nullNode();
            });
    MiniWorker w =
        new MiniWorker(journal, new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS));
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (issued.getCount() > 0 && System.nanoTime() < until) {
      if (w.tick() == 0) {
        journal.awaitWork(Duration.ofMillis(50));
      }
    }
    w.killBodies();
    // The dead body's lease runs out now, not after a wait a busy machine could outlast.
    ExpiredLeases.of(url, root);
    RunSnapshot done = null;
    while (System.nanoTime() < until) {
      journal.expireLeases();
      done = journal.run(root).orElseThrow();
      if (done.status().terminal()) {
        break;
      }
      if (w.tick() == 0) {
        journal.awaitWork(Duration.ofMillis(100));
      }
    }

    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    JsonNode diag = lastTail(root);
    assertThat(diag.path("diagnostic").asText())
        .isEqualTo(ErrorCode.NONDETERMINISTIC_REPLAY.wire());
    assertThat(diag.path("message").asText())
        .contains("call #1")
        .contains("classify")
        .contains("create");
    assertThat(w.calls).containsExactly("tickets/classify", "tickets/create");
  }

  @Test
  void anyAnswersTheJournaledWinnerOnReplayEvenWhenAnEarlierArgumentHasEndedSince()
      throws Exception {
    List<String> winners = new CopyOnWriteArrayList<>();
    RunRef root =
        start(
            (f, in) -> {
              Pending<JsonNode> a = f.command("true", "a").callAsync();
              Pending<JsonNode> b = f.command("true", "b").callAsync();
              String won = f.any(a, b) == a ? "a" : "b";
              winners.add(won);
              f.sleep(Duration.ofMillis(300));
              return JSON.textNode(won);
            });
    FlowBodyRunner runner =
        new FlowBodyRunner(
            journal,
            resolver,
            SdkConfig.DEFAULTS.toBuilder().childPoll(Duration.ofMillis(50)).build());
    ClaimedAttempt first = claim(root, StepKind.AGENT, 1).getFirst();
    CompletableFuture<StepOutcome> running = body(runner, first);
    List<ClaimedAttempt> commands = claim(root, StepKind.DETERMINISTIC, 2);
    ClaimedAttempt a = attemptOf(commands, Lowering.childId(root, 1));
    ClaimedAttempt b = attemptOf(commands, Lowering.childId(root, 2));
    journal.complete(b.lease(), new StepOutcome.Succeeded(JSON.objectNode().put("exitCode", 0)));
    StepOutcome slept = running.get();
    assertThat(slept).isInstanceOf(StepOutcome.Suspended.class);
    journal.complete(first.lease(), slept);
    // Now both have ended, and a comes first in the order given.
    journal.complete(a.lease(), new StepOutcome.Succeeded(JSON.objectNode().put("exitCode", 0)));

    ClaimedAttempt second = claim(root, StepKind.AGENT, 1).getFirst();
    StepOutcome replayed = body(runner, second).get();

    assertThat(replayed).isInstanceOf(StepOutcome.Succeeded.class);
    assertThat(((StepOutcome.Succeeded) replayed).output().asText()).isEqualTo("b");
    assertThat(winners).containsExactly("b", "b");
    assertThat(
            journal.entries(root).stream()
                .map(r -> r.entry())
                .filter(e -> e instanceof JournalEntry.EffectConfirmed c)
                .map(e -> ((JournalEntry.EffectConfirmed) e).output().orElseThrow())
                .filter(o -> o.path("verb").asText().equals("f.any")))
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.path("winner").asInt()).isEqualTo(1);
              assertThat(m.path("of").toString()).isEqualTo("[1,2]");
            });
  }

  private static CompletableFuture<StepOutcome> body(FlowBodyRunner runner, ClaimedAttempt a) {
    CompletableFuture<StepOutcome> out = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                out.complete(runner.run(a));
              } catch (Throwable t) {
                out.completeExceptionally(t);
              }
            });
    return out;
  }

  /** Claims {@code n} attempts of {@code kind} under {@code root} (its own step, or children). */
  private static List<ClaimedAttempt> claim(RunRef root, StepKind kind, int n) throws Exception {
    List<ClaimedAttempt> out = new ArrayList<>();
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (out.size() < n && System.nanoTime() < until) {
      out.addAll(
          journal.claim(
              new ClaimRequest(new WorkerId("test"), Set.of(kind), n - out.size(), LEASE)));
      if (out.size() < n) {
        journal.awaitWork(Duration.ofMillis(20));
      }
    }
    assertThat(out).as("claimed under " + root).hasSize(n);
    return out;
  }

  private static final Duration LEASE = Duration.ofSeconds(30);

  private static ClaimedAttempt attemptOf(List<ClaimedAttempt> attempts, RunRef run) {
    return attempts.stream().filter(a -> a.lease().runId().equals(run)).findFirst().orElseThrow();
  }
}
