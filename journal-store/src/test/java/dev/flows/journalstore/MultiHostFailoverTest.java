package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.migrations.Migrations;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Two servers behind one multi-host URL ({@code targetServerType=primary}), as after a failover:
 * one of them takes no writes (a standby cannot be faked here; a server with {@code
 * default_transaction_read_only} refuses writes with the same SQLSTATE, 25006, as a standby or a
 * primary being demoted does). The journal must write to the writable one, and a pooled connection
 * that meets the refusal must be dropped, not handed out again.
 */
class MultiHostFailoverTest {
  private static final String DATABASE = "flows_ha";

  private EmbeddedPostgres first;
  private EmbeddedPostgres second;

  @BeforeEach
  void twoServers() throws Exception {
    first = server();
    second = server();
  }

  @AfterEach
  void stop() throws Exception {
    first.close();
    second.close();
  }

  @Test
  void aMultiHostUrlFindsTheWritableServerWhenTheFirstTakesNoWrites() throws Exception {
    readOnly(first, true);
    try (PostgresJournal journal = PostgresJournal.connect(config(1))) {
      RunRef run =
          journal
              .admit(StartRun.of("k1", Specs.run("one", Specs.llm("a"))), Admit.queued())
              .runId();
      assertThat(runs(second, run)).isEqualTo(1);
      assertThat(runs(first, run)).isZero();
    }
  }

  @Test
  void aPooledConnectionThatMeetsAReadOnlyServerIsDroppedAndTheNextCallReachesTheWritableOne()
      throws Exception {
    try (PostgresJournal journal = PostgresJournal.connect(config(1))) {
      RunRef before =
          journal
              .admit(StartRun.of("k1", Specs.run("one", Specs.llm("a"))), Admit.queued())
              .runId();
      assertThat(runs(first, before)).isEqualTo(1);
      // The first server stops taking writes under the pool's one open connection.
      readOnly(first, true);
      assertThatThrownBy(
              () ->
                  journal.admit(
                      StartRun.of("k2", Specs.run("two", Specs.llm("a"))), Admit.queued()))
          .isInstanceOfSatisfying(
              FlowsException.class,
              e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
                assertThat(e.retryable()).isTrue();
              });
      // Kept in the pool, that connection would refuse this call too: dropped, the pool connects
      // afresh and the URL leads to the server that takes writes.
      RunRef after =
          journal
              .admit(StartRun.of("k2", Specs.run("two", Specs.llm("a"))), Admit.queued())
              .runId();
      assertThat(runs(second, after)).isEqualTo(1);
      assertThat(runs(first, after)).isZero();
    }
  }

  private JournalStoreConfig config(int poolSize) {
    String url =
        "jdbc:postgresql://localhost:"
            + first.getPort()
            + ",localhost:"
            + second.getPort()
            + "/"
            + DATABASE
            + "?user=postgres&targetServerType=primary&hostRecheckSeconds=1";
    return new JournalStoreConfig(
        url,
        Optional.empty(),
        Optional.empty(),
        poolSize,
        JournalStoreConfig.DEFAULT_CONNECTION_TIMEOUT,
        Duration.ofMillis(100),
        Duration.ofMillis(200),
        JournalStoreConfig.DEFAULT_EXPIRY_BATCH_SIZE,
        JournalStoreConfig.GroupCommitLimits.DEFAULTS);
  }

  private static EmbeddedPostgres server() throws Exception {
    EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setServerConfig("fsync", "off")
            .setServerConfig("synchronous_commit", "off")
            .setServerConfig("max_connections", "30")
            .start();
    try (Connection c = DriverManager.getConnection(pg.getJdbcUrl("postgres", "postgres"));
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + DATABASE);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(pg.getJdbcUrl("postgres", DATABASE));
    Migrations.of(ds).migrate();
    return pg;
  }

  /** Switches the whole server's writes off or on, for sessions already open too. */
  private static void readOnly(EmbeddedPostgres pg, boolean on) throws Exception {
    try (Connection c = DriverManager.getConnection(pg.getJdbcUrl("postgres", "postgres"));
        Statement st = c.createStatement()) {
      st.execute("ALTER SYSTEM SET default_transaction_read_only = " + on);
      st.execute("SELECT pg_reload_conf()");
    }
    // The reload reaches sessions asynchronously: wait until a new one sees it.
    for (int i = 0; i < 100; i++) {
      try (Connection c = DriverManager.getConnection(pg.getJdbcUrl("postgres", "postgres"));
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SHOW default_transaction_read_only")) {
        rs.next();
        if (rs.getString(1).equals(on ? "on" : "off")) {
          return;
        }
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("the reload did not take effect");
  }

  private static long runs(EmbeddedPostgres pg, RunRef run) throws SQLException {
    try (Connection c = DriverManager.getConnection(pg.getJdbcUrl("postgres", DATABASE));
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM flows.runs WHERE run_id = '"
                    + run.value().replace("'", "''")
                    + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
