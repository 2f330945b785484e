package dev.flows.ops.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chaos run's secret check passes on a clean database and finds a card left in clear. */
class ChaosSecretsTest {
  @TempDir Path dir;
  private Connection c;
  private final ChaosSecrets secrets = new ChaosSecrets();

  @BeforeEach
  void setUp() throws Exception {
    c = DriverManager.getConnection(TestDatabase.fresh("chaos_secrets").jdbcUrl());
    ChaosLoad.instrument(c);
  }

  @AfterEach
  void tearDown() throws Exception {
    c.close();
  }

  private ChaosChecks check(List<Path> logs) throws Exception {
    ChaosChecks checks = new ChaosChecks(c);
    secrets.check(c, checks, logs);
    return checks;
  }

  @Test
  void aDatabaseAndLogsWithoutTheCardPassAfterEveryTableWasScanned() throws Exception {
    Path log = Files.writeString(dir.resolve("worker.log"), "worker ready\n");

    ChaosChecks checks = check(List.of(log));

    assertThat(checks.violations).isEmpty();
    assertThat(checks.facts.get("tables scanned for a secret in clear")).isGreaterThan(5L);
  }

  @Test
  void aCardInClearInAnyTableIsAViolationNamingTheTable() throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute("CREATE TABLE chaos.leak (t text)");
      st.execute("INSERT INTO chaos.leak VALUES ('{\"text\": \"" + secrets.prefix() + "-7\"}')");
    }

    assertThat(check(List.of()).violations)
        .containsExactly("a secret card is in clear in table chaos.leak");
  }

  @Test
  void aCardInAWorkersLogIsAViolation() throws Exception {
    Path log = Files.writeString(dir.resolve("worker.log"), "calling with " + secrets.prefix());

    assertThat(check(List.of(log)).violations)
        .containsExactly("a secret card is in clear in worker log " + log);
  }
}
