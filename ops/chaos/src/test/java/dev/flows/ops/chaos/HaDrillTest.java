package dev.flows.ops.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The HA drill's CI variant: one failover (the primary SIGKILLed) of a pg_auto_failover formation
 * under the chaos load. CI installs Debian's postgresql-15-auto-failover before the test command;
 * elsewhere, without pg_autoctl or root (Postgres runs as the postgres user), it does not run.
 */
class HaDrillTest {
  @Test
  void oneFailoverOfThePrimaryUnderLoadLosesNothingAndBreaksNoInvariant() {
    assumeTrue(onPath("pg_autoctl"), "pg_autoctl not installed (postgresql-15-auto-failover)");
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to run as postgres");
    assertThat(HaDrill.drill(new String[] {"--failovers", "1", "--workers", "2"})).isZero();
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }
}
