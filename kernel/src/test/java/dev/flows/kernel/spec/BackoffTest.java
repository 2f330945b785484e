package dev.flows.kernel.spec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static final BackoffPolicy POLICY = BackoffPolicy.defaults();
  private static final String KEY = "a".repeat(64);

  @Test
  void theSameStepAndAttemptAlwaysGetTheSameDelay() {
    for (int attempt = 1; attempt <= 20; attempt++) {
      assertThat(Backoff.delayMs(POLICY, attempt, KEY))
          .isEqualTo(Backoff.delayMs(POLICY, attempt, KEY));
    }
  }

  @Test
  void withoutJitterTheDelayIsExactlyExponential() {
    BackoffPolicy exact = new BackoffPolicy(100, 60_000, 2.0, 0);

    assertThat(Backoff.delayMs(exact, 1, KEY)).isEqualTo(100);
    assertThat(Backoff.delayMs(exact, 2, KEY)).isEqualTo(200);
    assertThat(Backoff.delayMs(exact, 5, KEY)).isEqualTo(1_600);
    assertThat(Backoff.delayMs(exact, 10, KEY)).isEqualTo(51_200);
    assertThat(Backoff.delayMs(exact, 11, KEY)).isEqualTo(60_000);
  }

  @Test
  void everyDelayStaysWithinTheJitterBoundsAndNeverExceedsTheCap() {
    for (int k = 0; k < 50; k++) {
      String key = "key-" + k;
      for (int attempt = 1; attempt <= 30; attempt++) {
        double base =
            Math.min(
                POLICY.initialBackoffMs() * Math.pow(POLICY.multiplier(), attempt - 1),
                POLICY.maxBackoffMs());
        double spread = base * POLICY.jitterPercent() / 100.0;

        long delay = Backoff.delayMs(POLICY, attempt, key);

        assertThat(delay)
            .isBetween((long) Math.floor(base - spread), (long) Math.ceil(base + spread));
        assertThat(delay).isLessThanOrEqualTo(POLICY.maxBackoffMs());
      }
    }
  }

  @Test
  void aHugeAttemptNumberIsCappedRatherThanOverflowing() {
    long delay = Backoff.delayMs(POLICY, 100_000, KEY);

    assertThat(delay).isBetween(48_000L, 60_000L);
  }

  @Test
  void theDelayGrowsWithEachAttemptUntilTheCap() {
    // With multiplier 2 and 20 % jitter, attempt n+1's lowest delay (1.6 base) beats attempt n's
    // highest (1.2 base), so growth holds for every key, not just on average.
    for (int k = 0; k < 50; k++) {
      String key = "key-" + k;
      long previous = -1;
      for (int attempt = 1; attempt <= 9; attempt++) {
        long delay = Backoff.delayMs(POLICY, attempt, key);
        assertThat(delay).isGreaterThan(previous);
        previous = delay;
      }
    }
  }

  @Test
  void jitterSpreadsStepsThatFailAtTheSameAttempt() {
    Set<Long> delays = new HashSet<>();
    for (int k = 0; k < 50; k++) {
      delays.add(Backoff.delayMs(POLICY, 3, "key-" + k));
    }

    assertThat(delays).hasSizeGreaterThan(25);
  }
}
