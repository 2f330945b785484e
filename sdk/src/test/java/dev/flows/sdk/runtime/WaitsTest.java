package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.FlowHeader;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Timers, signal waits and the deterministic helpers of a body, on the reference journal with a
 * manual clock: a waiting body gives its attempt back, and its replay answers from the journal.
 */
class WaitsTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final FlowResolver resolver = new FlowResolver();
  private final MiniWorker worker =
      new MiniWorker(journal, new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS, clock));

  private RunRef start(DurableFlowTest.TestFlow.Body body) {
    DurableFlowTest.TestFlow flow =
        new DurableFlowTest.TestFlow(FlowHeader.named("waits" + System.nanoTime()).build(), body);
    resolver.register(flow);
    return journal
        .admit(
            StartRun.of(
                "k-" + System.nanoTime(),
                Lowering.root(
                    flow.header(),
                    new dev.flows.kernel.instruction.FlowBodyInstruction.Origin.ClassFlow("waits"),
                    JSON.objectNode(),
                    DurableFlowTest.inventory(),
                    SdkConfig.DEFAULTS)),
            Admit.queued())
        .runId();
  }

  /** Claims what is ready and waits until no attempt of the run is running. */
  private RunSnapshot settle(RunRef root) throws InterruptedException {
    worker.tick();
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(root).orElseThrow();
      if (s.steps().stream().noneMatch(st -> st.status() == StepStatus.RUNNING)) {
        return s;
      }
      Thread.sleep(5);
    }
    throw new AssertionError("an attempt is still running: " + journal.run(root));
  }

  private static StepSnapshot root(RunSnapshot s) {
    return s.steps().getFirst();
  }

  @Test
  void aSleepingBodyGivesItsAttemptBackAndResumesOnceAtItsDueTimeWithoutRedoingMemos()
      throws Exception {
    AtomicInteger before = new AtomicInteger();
    AtomicInteger after = new AtomicInteger();
    RunRef run =
        start(
            (f, in) -> {
              f.step("before", before::incrementAndGet);
              f.sleep(Duration.ofHours(1));
              f.step("after", after::incrementAndGet);
              return JSON.textNode("woke");
            });
    RunSnapshot sleeping = settle(run);
    assertThat(sleeping.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(root(sleeping).status()).isEqualTo(StepStatus.READY);
    assertThat(root(sleeping).lastReason()).contains(CompletionReason.SUSPENDED);
    assertThat(root(sleeping).notBefore()).isEqualTo(Instant.parse("2026-01-01T01:00:00Z"));

    clock.advance(Duration.ofMinutes(59));
    assertThat(settle(run).steps().getFirst().attempts()).as("not due yet").isEqualTo(1);

    clock.advance(Duration.ofMinutes(1));
    RunSnapshot done = settle(run);
    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(root(done).output()).contains(JSON.textNode("woke"));
    assertThat(root(done).attempts()).isEqualTo(2);
    assertThat(before.get()).isEqualTo(1);
    assertThat(after.get()).isEqualTo(1);
  }

  @Test
  void aSleepWhoseDueTimeHasPassedDoesNotSuspend() throws Exception {
    RunRef run =
        start(
            (f, in) -> {
              f.sleep(Duration.ZERO);
              f.sleepUntil(Instant.parse("2020-01-01T00:00:00Z"));
              return JSON.textNode("done");
            });
    RunSnapshot done = settle(run);
    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(root(done).attempts()).isEqualTo(1);
  }

  @Test
  void aSignalSentBeforeTheWaitIsAnsweredAtOnce() throws Exception {
    RunRef run =
        start(
            (f, in) ->
                f.awaitSignal("approve", Duration.ofHours(24)).orElse(JSON.textNode("timed out")));
    journal.sendSignal(run, "approve", JSON.objectNode().put("by", "ann"), Optional.empty());
    RunSnapshot done = settle(run);
    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(root(done).output()).contains(JSON.objectNode().put("by", "ann"));
    assertThat(root(done).attempts()).isEqualTo(1);
  }

  @Test
  void aSignalSentDuringTheWaitWakesTheBodyWhichAnswersItsPayload() throws Exception {
    RunRef run =
        start(
            (f, in) ->
                f.awaitSignal("approve", Duration.ofHours(24)).orElse(JSON.textNode("timed out")));
    RunSnapshot waiting = settle(run);
    assertThat(root(waiting).status()).isEqualTo(StepStatus.READY);
    assertThat(root(waiting).notBefore()).isEqualTo(Instant.parse("2026-01-02T00:00:00Z"));

    journal.sendSignal(run, "approve", JSON.objectNode().put("ok", true), Optional.empty());
    RunSnapshot done = settle(run);
    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(root(done).output()).contains(JSON.objectNode().put("ok", true));
  }

  @Test
  void aSignalSentTwiceWithOneKeyIsDeliveredOnce() throws Exception {
    RunRef run =
        start(
            (f, in) -> {
              var out = JSON.arrayNode();
              out.add(
                  f.awaitSignal("approve", Duration.ofMinutes(5)).orElse(JSON.textNode("none")));
              out.add(
                  f.awaitSignal("approve", Duration.ofMinutes(5)).orElse(JSON.textNode("none")));
              return out;
            });
    journal.sendSignal(run, "approve", JSON.textNode("first"), Optional.of("k"));
    journal.sendSignal(run, "approve", JSON.textNode("again"), Optional.of("k"));
    settle(run);
    clock.advance(Duration.ofMinutes(5));
    RunSnapshot done = settle(run);
    assertThat(root(done).output()).contains(JSON.arrayNode().add("first").add("none"));
  }

  @Test
  void aWaitThatTimesOutAnswersEmptyAndALaterSignalDoesNotChangeItsReplay() throws Exception {
    List<String> answers = new CopyOnWriteArrayList<>();
    RunRef run =
        start(
            (f, in) -> {
              Optional<JsonNode> s = f.awaitSignal("approve", Duration.ofMinutes(10));
              answers.add(s.map(JsonNode::toString).orElse("timeout"));
              f.sleep(Duration.ofMinutes(1));
              return JSON.textNode(s.isPresent() ? "approved" : "cancelled");
            });
    settle(run);
    clock.advance(Duration.ofMinutes(10));
    settle(run); // times out, then sleeps
    journal.sendSignal(run, "approve", JSON.textNode("late"), Optional.empty());
    settle(run); // the signal readies the sleeper, which sleeps on
    clock.advance(Duration.ofMinutes(1));
    RunSnapshot done = settle(run);
    assertThat(root(done).output()).contains(JSON.textNode("cancelled"));
    assertThat(answers).isNotEmpty().allMatch("timeout"::equals);
  }

  @Test
  void theDeterministicHelpersAnswerTheirFirstValuesOnReplay() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    RunRef run =
        start(
            (f, in) -> {
              seen.add(f.now() + " " + f.randomUUID() + " " + f.random());
              f.sleep(Duration.ofSeconds(30));
              return JSON.nullNode();
            });
    settle(run);
    clock.advance(Duration.ofSeconds(30));
    assertThat(settle(run).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(seen).hasSize(2);
    assertThat(seen.get(1)).isEqualTo(seen.get(0));
    assertThat(seen.get(0)).startsWith("2026-01-01T00:00:00Z ");
  }

  @Test
  void aReplayThatMakesAnotherCallWhereATimerWasIsRefusedNondeterministic() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    RunRef run =
        start(
            (f, in) -> {
              if (attempts.incrementAndGet() == 1) {
                f.sleep(Duration.ofSeconds(1));
              } else {
                f.now();
              }
              return JSON.nullNode();
            });
    settle(run);
    clock.advance(Duration.ofSeconds(1));
    RunSnapshot failed = settle(run);
    assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
    String diagnostic =
        journal.entries(run).stream()
            .map(JournalRecord -> JournalRecord.entry())
            .filter(JournalEntry.StepCompleted.class::isInstance)
            .map(JournalEntry.StepCompleted.class::cast)
            .reduce((a, b) -> b)
            .flatMap(JournalEntry.StepCompleted::trajectoryTail)
            .orElseThrow()
            .toString();
    assertThat(diagnostic)
        .contains(ErrorCode.NONDETERMINISTIC_REPLAY.wire())
        .contains("f.sleep()")
        .contains("f.now()");
  }
}
