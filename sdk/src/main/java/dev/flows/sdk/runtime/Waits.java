package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoVerb;
import dev.flows.kernel.journal.StepOutcome;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;

/**
 * Durable timers and signal waits. The first call at a position journals its due time (a memo
 * {@code {"verb":"f.sleep","until"}} or {@code {"verb":"f.awaitSignal","signal","until"}}); every
 * replay judges against that, so a replay after the timer fired does not sleep again. A body that
 * must wait gives its attempt back ({@link StepOutcome.Suspended}): its step is claimable again at
 * the due time, or at once when a signal it waits for is sent, and holds no thread, lease or memory
 * meanwhile.
 */
final class Waits {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  static final String SLEEP = MemoVerb.SLEEP.wire();
  static final String AWAIT_SIGNAL = MemoVerb.AWAIT_SIGNAL.wire();

  private final Journal journal;
  private final LeaseToken lease;
  private final BodyMemos memos;
  private final InstantSource clock;
  private final IntSupplier nextPosition;
  private final UnaryOperator<SuspendSignal> suspend;

  Waits(
      Journal journal,
      LeaseToken lease,
      BodyMemos memos,
      InstantSource clock,
      IntSupplier nextPosition,
      UnaryOperator<SuspendSignal> suspend) {
    this.journal = journal;
    this.lease = lease;
    this.memos = memos;
    this.clock = clock;
    this.nextPosition = nextPosition;
    this.suspend = suspend;
  }

  void sleepUntil(Instant until, String call) {
    int pos = nextPosition.getAsInt();
    Instant due =
        memos
            .of(pos, SLEEP, call)
            .map(m -> Instant.parse(m.path("until").asText()))
            .orElseGet(
                () -> {
                  memos.keep(pos, BodyMemos.verb(SLEEP).put("until", until.toString()));
                  return until;
                });
    Instant now = clock.instant();
    // Past the timer before (a worker whose clock is behind would otherwise sleep again).
    if (!now.isBefore(due) || memos.passed(pos)) {
      return;
    }
    throw suspend.apply(
        new SuspendSignal(
            StepOutcome.Suspended.timer(Duration.between(now, due)), "a timer due " + due));
  }

  Optional<JsonNode> awaitSignal(String name, Duration timeout, String call) {
    int pos = nextPosition.getAsInt();
    Optional<JsonNode> started = memos.of(pos, AWAIT_SIGNAL, call);
    if (started.isPresent() && !started.get().path("signal").asText().equals(name)) {
      throw memos.refuse(pos, started.get(), call);
    }
    Instant until =
        started
            .map(m -> Instant.parse(m.path("until").asText()))
            .orElseGet(
                () -> {
                  Instant u = clock.instant().plus(timeout);
                  memos.keep(
                      pos,
                      BodyMemos.verb(AWAIT_SIGNAL).put("signal", name).put("until", u.toString()));
                  return u;
                });
    Optional<JsonNode> decided = memos.outcome(pos);
    if (decided.isEmpty()) {
      memos.flush();
      decided = journal.takeSignal(lease, name, BodyMemos.outcomeSurface(pos));
      decided.ifPresent(o -> memos.delivered(pos, o));
    }
    if (decided.isEmpty()) {
      Instant now = clock.instant();
      if (now.isBefore(until)) {
        throw suspend.apply(
            new SuspendSignal(
                StepOutcome.Suspended.signal(name, Duration.between(now, until)),
                "signal '" + name + "' until " + until));
      }
      // Journaled, so a signal sent after the timeout never changes what this wait answered.
      ObjectNode timedOut = JSON.objectNode().put("signal", name).put("timeout", true);
      decided = Optional.of(memos.keepOutcome(pos, timedOut));
    }
    JsonNode o = decided.get();
    return o.path("timeout").asBoolean(false) ? Optional.empty() : Optional.of(o.path("payload"));
  }
}
