package dev.flows.kernel.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WakeCounterTest {
  @Test
  void aSignalGivenBeforeTheWaiterArrivesWakesItOnceAndThenItWaitsAgain() throws Exception {
    WakeCounter w = new WakeCounter();
    w.signal();
    w.signal();
    assertThat(w.await(Duration.ofMillis(1))).isTrue();
    assertThat(w.await(Duration.ofMillis(20))).isFalse();
  }

  @Test
  void aSignalFromAnotherThreadWakesAWaiter() throws Exception {
    WakeCounter w = new WakeCounter();
    Thread.ofVirtual().start(w::signal);
    assertThat(w.await(Duration.ofSeconds(10))).isTrue();
  }
}
