package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.kernel.ErrorCode;
import dev.flows.sdk.FlowsError;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A login the database refuses is told apart from a database that is away: refused {@code
 * database_auth_failed} at once, not retryable, on a server that checks passwords.
 */
class DatabaseLoginTest {
  private static final String ROLE = "flows_login";
  private static final String PASSWORD = "right-password";

  @TempDir static Path dir;
  private static EmbeddedPostgres pg;

  @BeforeAll
  static void serverThatChecksPasswords() throws Exception {
    // The superuser zonky checks the server with stays trusted; every other role needs its
    // password over TCP.
    Path hba =
        Files.writeString(
            dir.resolve("pg_hba.conf"),
            """
            local all all trust
            host all postgres 127.0.0.1/32 trust
            host all postgres ::1/128 trust
            host all all 127.0.0.1/32 scram-sha-256
            host all all ::1/128 scram-sha-256
            """);
    pg =
        EmbeddedPostgres.builder()
            .setServerConfig("hba_file", hba.toString())
            .setServerConfig("fsync", "off")
            .start();
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + PASSWORD + "'");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    pg.close();
  }

  @Test
  void aWrongPasswordIsRefusedDatabaseAuthFailedAtOnceAndNotRetryable() {
    String url = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres";
    long started = System.nanoTime();
    assertThatThrownBy(() -> Flows.builder().jdbcUrl(url, ROLE, "wrong-password").build().close())
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_AUTH_FAILED.wire());
              assertThat(e.retryable()).isFalse();
              assertThat(e.getMessage()).contains("28P01").doesNotContain("wrong-password");
              assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("password"));
              for (Throwable t = e; t != null; t = t.getCause()) {
                assertThat(t)
                    .as("refused by the login itself, not by a pool that timed out waiting")
                    .isNotInstanceOf(SQLTransientConnectionException.class);
              }
            });
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("refused at once, not after the pool's connection timeout")
        .isLessThan(JournalStoreConfig.DEFAULT_CONNECTION_TIMEOUT);
  }
}
