package dev.flows.ops.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The chaos run's flags: which fault kinds it draws from, and how long it injects them. */
class ChaosMainTest {
  @Test
  void aRunDrawsFromEveryFaultKindUnlessFaultsNamesSome() throws Exception {
    assertThat(ChaosMain.parse(new String[] {}).faults()).isEqualTo(EnumSet.allOf(Fault.class));
    assertThat(ChaosMain.parse(new String[] {}).faultsWithin()).isEmpty();

    ChaosConfig c =
        ChaosMain.parse(
            new String[] {"--faults", "task-sigkill,postgres-restart", "--minutes", "3"});

    assertThat(c.faults())
        .containsExactlyInAnyOrder(Fault.TASK_CALL_WORKER_SIGKILL, Fault.POSTGRES_RESTART);
    assertThat(c.faultsWithin()).contains(Duration.ofMinutes(3));
  }

  @Test
  void anUnknownFaultKindIsRefusedWithTheKnownOnes() {
    assertThatThrownBy(() -> ChaosMain.parse(new String[] {"--faults", "task-sigkill,disk-full"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown fault 'disk-full'")
        .hasMessageContaining("worker-sigkill,terminate-backends")
        .hasMessageContaining("task-sigkill");
  }
}
