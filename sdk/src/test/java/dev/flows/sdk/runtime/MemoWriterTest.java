package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.HeldAdmission;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MemoWriterTest {
  @Test
  void aMemoHandedOverAfterTheBodysEndIsRefusedRatherThanLeftForNobodyToWrite() {
    MemoWriter w =
        new MemoWriter(
            new InMemoryJournal(Clock.systemUTC()),
            new LeaseToken(RunRef.random(), "body", 1, "lease"),
            Duration.ofMinutes(1));
    w.writeBehind("/memo/0", TextNode.valueOf("a"));
    assertThat(w.takeUnsent()).extracting(MemoEffect::surfacePath).containsExactly("/memo/0");
    assertThatThrownBy(() -> w.writeBehind("/memo/1", TextNode.valueOf("b")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("/memo/1");
  }

  @Test
  void aWriterHoldingMoreMemosThanAnAdmissionCarriesSendsThemWithoutWaitingOutItsDelay()
      throws InterruptedException {
    CountDownLatch sent = new CountDownLatch(1);
    MemoWriter w =
        new MemoWriter(
            batchesSignal(sent),
            new LeaseToken(RunRef.random(), "body", 1, "lease"),
            Duration.ofMinutes(10));
    for (int i = 0; i < HeldAdmission.MOST_MEMOS_WITH_ADMISSION; i++) {
      w.writeBehind("/memo/" + i, TextNode.valueOf("m"));
    }
    // As many as an admission carries with its end: they wait for the delay, or for the end.
    assertThat(sent.await(300, TimeUnit.MILLISECONDS)).isFalse();
    w.writeBehind("/memo/one-more", TextNode.valueOf("m"));
    assertThat(sent.await(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aBodyThatEndsWithinTheDelayStartsNoWriterThreadItsMemosGoWithTheEnd() {
    AtomicInteger started = new AtomicInteger();
    MemoWriter w =
        new MemoWriter(
            new InMemoryJournal(Clock.systemUTC()),
            new LeaseToken(RunRef.random(), "body", 1, "lease"),
            Duration.ofMinutes(1),
            r -> {
              started.incrementAndGet();
              return Thread.ofVirtual().unstarted(r);
            });

    w.writeBehind("/memo/0", TextNode.valueOf("a"));
    w.writeBehind("/memo/1", TextNode.valueOf("b"));

    assertThat(w.takeUnsent())
        .extracting(MemoEffect::surfacePath)
        .containsExactly("/memo/0", "/memo/1");
    assertThat(started).as("writer threads started").hasValue(0);
    w.flush();
  }

  @Test
  void aWriterWhoseDelayPassedSendsItsMemosOnItsOwn() throws InterruptedException {
    CountDownLatch sent = new CountDownLatch(1);
    MemoWriter w =
        new MemoWriter(
            batchesSignal(sent),
            new LeaseToken(RunRef.random(), "body", 1, "lease"),
            Duration.ofMillis(50));

    w.writeBehind("/memo/0", TextNode.valueOf("a"));

    assertThat(sent.await(30, TimeUnit.SECONDS)).isTrue();
    w.flush();
    assertThat(w.takeUnsent()).isEmpty();
  }

  /** A journal that counts {@code sent} down at each memo batch and answers it written. */
  private static Journal batchesSignal(CountDownLatch sent) {
    return (Journal)
        Proxy.newProxyInstance(
            Journal.class.getClassLoader(),
            new Class<?>[] {Journal.class},
            (proxy, m, args) -> {
              if (!m.getName().equals("recordConfirmedEffects")) {
                throw new UnsupportedOperationException(m.getName());
              }
              sent.countDown();
              return ((List<?>) args[1])
                  .stream()
                      .map(memo -> new EffectElection("key", false, false, Optional.empty()))
                      .toList();
            });
  }
}
