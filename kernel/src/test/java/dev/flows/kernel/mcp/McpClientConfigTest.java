package dev.flows.kernel.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class McpClientConfigTest {
  private final McpClientConfig c = McpClientConfig.DEFAULTS;

  @Test
  void backoffStartsAtOneSecondAndGrowsByOneAndAHalfUntilThirtySeconds() {
    assertThat(c.backoff(1, 0)).isEqualTo(Duration.ofMillis(1000));
    assertThat(c.backoff(2, 0)).isEqualTo(Duration.ofMillis(1500));
    assertThat(c.backoff(3, 0)).isEqualTo(Duration.ofMillis(2250));
    assertThat(c.backoff(20, 0)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void jitterStaysWithinItsFractionAndNeverExceedsTheCap() {
    assertThat(c.backoff(2, -1)).isEqualTo(Duration.ofMillis(1200));
    assertThat(c.backoff(2, 1)).isEqualTo(Duration.ofMillis(1800));
    assertThat(c.backoff(30, 1)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void aShrinkingFactorIsRefused() {
    assertThatThrownBy(
            () -> c.withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(2), 0.5, 0.1, 3))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
