package dev.flows.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class StopSignalTest {
  @Test
  void aRaisedSignalIsLoweredOnceTheLoopsThatReadItEnded() throws Exception {
    StopSignal signal = new StopSignal();
    Thread loop = Thread.ofPlatform().start(() -> signal.await(Duration.ofMinutes(1)));
    signal.raise();

    signal.lowerAfter(Duration.ofSeconds(10), loop, null);

    assertThat(loop.isAlive()).isFalse();
    assertThat(signal.raised()).isFalse();
    assertThat(signal.await(Duration.ofMillis(1))).isFalse();
  }

  @Test
  void aSignalALoopStillRunsUnderStaysRaised() throws Exception {
    StopSignal signal = new StopSignal();
    CountDownLatch release = new CountDownLatch(1);
    Thread stuck = Thread.ofPlatform().name("stuck-claim").start(() -> awaitQuietly(release));
    signal.raise();

    assertThatThrownBy(() -> signal.lowerAfter(Duration.ofMillis(50), stuck))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("stuck-claim");
    assertThat(signal.raised()).isTrue();
    release.countDown();
    stuck.join();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
