package dev.flows.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class WorkerConfigTest {
  @Test
  void theDefaultsAreTheDocumentedOnes() {
    WorkerConfig c = WorkerConfig.defaults();
    assertThat(c.defaultLease()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.renewalDivisor()).isEqualTo(3);
    assertThat(c.tailCapBytes()).isEqualTo(16 * 1024);
  }

  @Test
  void theNextRenewalIsAThirdOfTheRemainingLeaseAway() {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    assertThat(WorkerConfig.defaults().nextRenewalAt(t, t.plusSeconds(30)))
        .isEqualTo(t.plusSeconds(10));
  }

  @Test
  void propertiesOverrideSingleFields() {
    Properties p = new Properties();
    p.setProperty("flows.worker.capacity", "3");
    p.setProperty("flows.worker.leaseMs", "1500");
    p.setProperty("flows.worker.stopGraceMs", "0");

    WorkerConfig c = WorkerConfig.defaults().overriddenBy(p);

    assertThat(c.capacity()).isEqualTo(3);
    assertThat(c.defaultLease()).isEqualTo(Duration.ofMillis(1500));
    assertThat(c.stopGrace()).isZero();
    assertThat(c.pollInterval()).isEqualTo(WorkerConfig.DEFAULT_POLL_INTERVAL);
  }

  @Test
  void aMalformedOrOutOfRangePropertyIsRefusedAsInvalidConfig() {
    for (String bad : new String[] {"many", "0"}) {
      Properties p = new Properties();
      p.setProperty("flows.worker.capacity", bad);
      assertThatThrownBy(() -> WorkerConfig.defaults().overriddenBy(p))
          .isInstanceOfSatisfying(
              FlowsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID));
    }
  }
}
