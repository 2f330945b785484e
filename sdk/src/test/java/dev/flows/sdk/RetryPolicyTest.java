package dev.flows.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  @Test
  void aPolicyBacksOffExponentiallyUpToItsCap() {
    RetryPolicy p =
        RetryPolicy.attempts(5).backoff(Duration.ofMillis(100), 3.0, Duration.ofMillis(500));

    assertThat(p.backoffAfter(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(p.backoffAfter(2)).isEqualTo(Duration.ofMillis(300));
    assertThat(p.backoffAfter(3)).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void doNotRetryMatchesErrorCodesAndExceptionClassesWithTheirSubclasses() {
    RetryPolicy p =
        RetryPolicy.attempts(3)
            .doNotRetry("mcp_tool_error")
            .doNotRetry(IllegalArgumentException.class);

    assertThat(p.retries("mcp_tool_error", null)).isFalse();
    assertThat(p.retries("", new NumberFormatException("x"))).isFalse();
    assertThat(p.retries("", new IllegalStateException("x"))).isTrue();
    assertThat(p.retries("mcp_disconnected", null)).isTrue();
  }

  @Test
  void aMalformedPolicyIsRefusedInvalidInput() {
    assertThatThrownBy(() -> RetryPolicy.attempts(0))
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT.wire()))
        .hasMessageContaining("at least 1 attempt");
    assertThatThrownBy(
            () ->
                RetryPolicy.attempts(2).backoff(Duration.ofSeconds(2), 2.0, Duration.ofSeconds(1)))
        .isInstanceOf(FlowsError.class)
        .hasMessageContaining("max backoff");
    assertThatThrownBy(
            () -> RetryPolicy.attempts(2).backoff(Duration.ofMillis(1), 0.5, Duration.ofSeconds(1)))
        .isInstanceOf(FlowsError.class)
        .hasMessageContaining("multiplier");
    assertThatThrownBy(() -> CallPolicy.DEFAULT.withTimeout(Duration.ZERO))
        .isInstanceOf(FlowsError.class)
        .hasMessageContaining("positive");
  }
}
