package dev.flows.worker.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.RunRef;
import dev.flows.migrations.Migrations;
import dev.flows.worker.ResilientJournal;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.pg.DatabaseFaultCodesTest.CountingExecutor;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults of a server's resources, each on a Postgres cluster of its own (they change server
 * settings and would starve other tests): every connection slot taken, and a full disk. The verb
 * the fault hits fails {@code database_unavailable} with a fix, nothing of it is written, and a
 * worker that met the fault goes on once it clears, without a restart.
 */
class DatabaseResourceFaultsTest {
  /** Connection slots of the starved cluster, superusers included. */
  private static final int SLOTS = 8;

  private static EmbeddedPostgres.Builder cluster() {
    return EmbeddedPostgres.builder()
        .setServerConfig("fsync", "off")
        .setServerConfig("synchronous_commit", "off");
  }

  /** A small pool that gives up on a connection soon: the test waits for the refusal. */
  private static PostgresJournal journal(String url) {
    JournalStoreConfig d = JournalStoreConfig.forUrl(url);
    return PostgresJournal.connect(
        new JournalStoreConfig(
            url,
            Optional.empty(),
            Optional.empty(),
            2,
            Duration.ofSeconds(2),
            d.listenPollInterval(),
            d.listenReconnectDelay(),
            d.expiryBatchSize()));
  }

  /** Opens connections until the server refuses one for its slots ({@code 53300}). */
  private static List<Connection> takeEverySlot(String url) throws SQLException {
    List<Connection> held = new ArrayList<>();
    while (true) {
      try {
        held.add(DriverManager.getConnection(url));
      } catch (SQLException e) {
        assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("53300");
        return held;
      }
      assertThat(held).as("connections the server let in").hasSizeLessThanOrEqualTo(SLOTS);
    }
  }

  private static void closeAll(List<Connection> connections) throws SQLException {
    for (Connection c : connections) {
      c.close();
    }
  }

  @Test
  void takenConnectionSlotsFailAVerbWithACodeAndTheWorkerGoesOnWhenTheyFree() throws Exception {
    try (EmbeddedPostgres server =
        cluster()
            .setServerConfig("max_connections", String.valueOf(SLOTS))
            .setServerConfig("superuser_reserved_connections", "0")
            .start()) {
      String url = server.getJdbcUrl("postgres", "postgres");
      Migrations.of(server.getPostgresDatabase()).migrate();
      CountingExecutor executor = new CountingExecutor();
      List<Connection> hog = takeEverySlot(url);
      try (PostgresJournal journal = journal(url)) {
        Worker worker = DatabaseFaultCodesTest.worker(journal, executor);
        worker.start();
        try {
          FlowsException e =
              catchThrowableOfType(
                  FlowsException.class,
                  () -> journal.admit(DatabaseFaultCodesTest.oneStepRun(), Admit.queued()));
          assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
          assertThat(e.retryable()).isTrue();
          assertThat(e.getMessage()).contains("too many clients", "53300");
          assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("max_connections"));
          // The worker's claims meet the same refusal meanwhile (retried, logged).
          Thread.sleep(1000);
          closeAll(hog);
          assertThat(DatabaseFaultCodesTest.written(url)).isEqualTo("0 runs, 0 steps, 0 entries");
          RunRef run =
              new ResilientJournal(journal, WorkerConfig.defaults())
                  .admit(DatabaseFaultCodesTest.oneStepRun(), Admit.queued())
                  .runId();
          DatabaseFaultCodesTest.assertSucceedsOnce(journal, run);
          assertThat(executor.executed).hasValue(1);
        } finally {
          worker.stop();
        }
      } finally {
        closeAll(hog);
      }
    }
  }

  /** Runs {@code command}; answers its exit status, or -1 when it could not be run. */
  private static int run(String... command) throws InterruptedException {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  /** Inserts rows until the database refuses to extend a file; answers the refusal. */
  private static SQLException fill(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute("CREATE TABLE public.filler (b text)");
      while (true) {
        try {
          st.execute(
              "INSERT INTO public.filler SELECT (SELECT string_agg(md5(random()::text), '')"
                  + " FROM generate_series(1, 30)) FROM generate_series(1, 2000)");
        } catch (SQLException e) {
          return e;
        }
      }
    }
  }

  /**
   * The flows schema lives in a tablespace on a 24 MiB tmpfs, the cluster's WAL on the ordinary
   * disk: Postgres meets a full disk while extending a table as an error of the statement ({@code
   * 53100}), but a WAL write that fails stops the whole server (a PANIC and a crash restart), which
   * is the terminated-connection fault, not this one. Mounting needs root (CI runs as root).
   */
  @Test
  void aFullDiskFailsAVerbWithACodeWritesNothingAndTheWorkerGoesOnOnceSpaceIsFreed(
      @TempDir Path root) throws Exception {
    Path data = root.resolve("data");
    Path small = Files.createDirectories(root.resolve("small"));
    Assumptions.assumeTrue(
        run("mount", "-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", small.toString()) == 0,
        "mounting a tmpfs for the database's small disk needs root; not root here");
    try (EmbeddedPostgres server = cluster().setDataDirectory(data).start()) {
      Files.setOwner(small, Files.getOwner(data));
      String admin = server.getJdbcUrl("postgres", "postgres");
      PgJournals.execute(admin, "CREATE TABLESPACE small LOCATION '" + small + "'");
      PgJournals.execute(admin, "CREATE DATABASE flows_disk TABLESPACE small");
      String url = server.getJdbcUrl("postgres", "flows_disk");
      Migrations.of(server.getDatabase("postgres", "flows_disk")).migrate();
      CountingExecutor executor = new CountingExecutor();
      try (PostgresJournal journal = journal(url)) {
        Worker worker = DatabaseFaultCodesTest.worker(journal, executor);
        worker.start();
        try {
          SQLException full = fill(url);
          assertThat(full.getSQLState()).as(full.getMessage()).isEqualTo("53100");
          FlowsException e =
              catchThrowableOfType(
                  FlowsException.class,
                  () -> journal.admit(DatabaseFaultCodesTest.oneStepRun(), Admit.queued()));
          assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
          assertThat(e.retryable()).isTrue();
          assertThat(e.getMessage()).contains("53100");
          assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("disk is full"));
          assertThat(DatabaseFaultCodesTest.written(url)).isEqualTo("0 runs, 0 steps, 0 entries");
          PgJournals.execute(url, "DROP TABLE public.filler");
          RunRef run =
              new ResilientJournal(journal, WorkerConfig.defaults())
                  .admit(DatabaseFaultCodesTest.oneStepRun(), Admit.queued())
                  .runId();
          DatabaseFaultCodesTest.assertSucceedsOnce(journal, run);
          assertThat(executor.executed).hasValue(1);
        } finally {
          worker.stop();
        }
      }
    } finally {
      run("umount", "-l", small.toString());
    }
  }
}
