package dev.flows.ops.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The HA drill's short variant: one failover (the primary SIGKILLed) of a pg_auto_failover
 * formation under the chaos load. It takes several minutes (a formation to create, a node to
 * re-sync), more than CI can give it, so it runs only when asked with FLOWS_HA_DRILL=1, and needs
 * pg_autoctl and root (Postgres runs as the postgres user).
 */
class HaDrillTest {
  @Test
  void oneFailoverOfThePrimaryUnderLoadLosesNothingAndBreaksNoInvariant() {
    assumeTrue("1".equals(System.getenv("FLOWS_HA_DRILL")), "FLOWS_HA_DRILL=1 not set");
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
