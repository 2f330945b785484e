package dev.flows.kernel.journal;

import static dev.flows.kernel.journal.Specs.agent;
import static dev.flows.kernel.journal.Specs.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.lifecycle.RunStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a held admission does when the admission it makes fails: the cases the contract cannot
 * provoke on a real journal (a commit whose answer is lost, a refusal).
 */
class HeldAdmissionsTest {
  private static final WorkerId WORKER = new WorkerId("holding");
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final InMemoryJournal memory =
      new InMemoryJournal(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")));

  /** The in-memory journal's admission, failing as {@code fault} says before or after it. */
  private HeldAdmissions over(Fault fault) {
    return new HeldAdmissions(
        new HeldAdmissions.Unheld() {
          @Override
          public <R> R admit(StartRun request, Admit<R> mode) {
            fault.before(mode);
            R answer = memory.admit(request, mode);
            fault.after(mode);
            return answer;
          }

          @Override
          public Optional<RunSnapshot> run(RunRef runId) {
            return memory.run(runId);
          }
        });
  }

  private interface Fault {
    default void before(Admit<?> mode) {}

    default void after(Admit<?> mode) {}
  }

  private static StartRun request(RunRef id) {
    return StartRun.of("held:" + id.value(), run(agent("body", "/memo/0"))).withRunId(id);
  }

  private static FlowsException connectionLost() {
    return new FlowsException(
        ErrorCode.DATABASE_UNAVAILABLE, "connection lost after the commit", "", "", true, null);
  }

  private List<String> types(RunRef id) {
    return memory.entries(id).stream().map(r -> r.entry().type()).toList();
  }

  @Test
  @Timeout(
      value = 20,
      threadMode =
          Timeout.ThreadMode
              .SEPARATE_THREAD) // a retry that found the admission taken but never made would wait
  // for ever
  void anAdmissionWithItsEndWhoseAnswerWasLostStaysHeldAndItsRetryIsAnsweredFromTheRun() {
    AtomicInteger tries = new AtomicInteger();
    HeldAdmissions held =
        over(
            new Fault() {
              @Override
              public void after(Admit<?> mode) {
                if (mode instanceof Admit.WithItsEnd && tries.incrementAndGet() == 1) {
                  throw connectionLost();
                }
              }
            });
    RunRef id = RunRef.random();
    HeldAdmission h =
        held.hold(request(id), Admit.deferred(WORKER, LEASE, Instant.now().plus(LEASE)));
    h.bodyStarted();
    StepOutcome.Succeeded ok =
        new StepOutcome.Succeeded(
            TextNode.valueOf("done"),
            List.of(new MemoEffect("/memo/0", Optional.of(TextNode.valueOf("m")))));

    assertThatThrownBy(() -> held.complete(h.attempt().lease(), ok))
        .isInstanceOf(FlowsException.class);
    // The caller's retry (a worker's journal retries outages) makes the admission again.
    CompletionAck ack = held.complete(h.attempt().lease(), ok).orElseThrow();

    assertThat(tries).hasValue(2);
    assertThat(ack.runStatus()).isEqualTo(RunStatus.SUCCEEDED);
    StartedRun s = h.await(Duration.ofSeconds(10));
    assertThat(s.runId()).isEqualTo(id);
    assertThat(s.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(types(id))
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "effect.recorded",
            "effect.confirmed",
            "step.completed",
            "run.completed");
  }

  @Test
  void aRefusedAdmissionReachesTheStarterAndAdmitsNothingLater() {
    RunRef taken = memory.admit(StartRun.of("taken", run(agent("body"))), Admit.queued()).runId();
    HeldAdmissions held =
        over(
            new Fault() {
              @Override
              public void before(Admit<?> mode) {
                if (mode instanceof Admit.ClaimedHere) {
                  throw new IllegalStateException("admission refused");
                }
              }
            });
    HeldAdmission h =
        held.hold(
            StartRun.of("other", run(agent("body"))).withRunId(taken),
            Admit.deferred(WORKER, LEASE, Instant.now().plus(LEASE)));
    h.bodyStarted();
    assertThatThrownBy(() -> h.await(Duration.ofMillis(1))).hasMessage("admission refused");
    h.attemptEnded();
    assertThat(memory.run(taken).orElseThrow().admissionKey()).isEqualTo("taken");
    // Released: a verb naming the run goes to the journal as it is.
    held.admitBefore(taken);
  }
}
