package dev.flows.worker.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.StepKind;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.JournalChecks;
import dev.flows.worker.ResilientJournal;
import dev.flows.worker.StepExecution;
import dev.flows.worker.StepExecutor;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A statement timeout and a connection dropped inside a transaction, on a database of this class's
 * own: the verb the fault hits fails {@code database_unavailable} with a fix, nothing of it is
 * written, and a worker that met the same fault goes on without a restart.
 */
class DatabaseFaultCodesTest {
  static final Duration WAIT = Duration.ofMinutes(2);

  /** Counts attempts executed: a step's work done twice would show as 2. */
  static final class CountingExecutor implements StepExecutor {
    final AtomicInteger executed = new AtomicInteger();

    @Override
    public StepKind kind() {
      return StepKind.DETERMINISTIC;
    }

    @Override
    public StepOutcome execute(StepExecution execution) {
      executed.incrementAndGet();
      return new StepOutcome.Succeeded(JsonNodeFactory.instance.objectNode().put("ok", true));
    }
  }

  static Worker worker(Journal journal, StepExecutor executor) {
    WorkerConfig config =
        WorkerConfig.defaults().toBuilder()
            .capacity(4)
            .pollInterval(Duration.ofMillis(200))
            .reconcileInterval(Duration.ofSeconds(1))
            .build();
    return new Worker(
        journal, ExecutorRegistry.of(executor), config, Clock.systemUTC(), new WorkerId("faults"));
  }

  static StartRun oneStepRun() {
    return StartRun.of(
        UUID.randomUUID().toString(), Specs.run(Specs.iterations(Specs.command("s", "true"), 3)));
  }

  static long scalar(String jdbcUrl, String sql) {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** What a verb could have half-written: rows of runs, steps and journal entries. */
  static String written(String jdbcUrl) {
    return scalar(jdbcUrl, "SELECT count(*) FROM flows.runs")
        + " runs, "
        + scalar(jdbcUrl, "SELECT count(*) FROM flows.steps")
        + " steps, "
        + scalar(jdbcUrl, "SELECT count(*) FROM flows.journal_entries")
        + " entries";
  }

  /** The run succeeds on {@code journal}'s worker, its step executed and completed once. */
  static void assertSucceedsOnce(Journal raw, RunRef run) {
    Journal journal = new ResilientJournal(raw, WorkerConfig.defaults());
    await()
        .atMost(WAIT)
        .until(() -> journal.run(run).orElseThrow().status() == RunStatus.SUCCEEDED);
    assertThat(JournalChecks.completionsWith(journal, run, CompletionReason.SUCCESS)).isEqualTo(1);
  }

  @Test
  void aVerbPastStatementTimeoutFailsWithACodeWritesNothingAndTheWorkerGoesOn() throws Exception {
    TestDatabase.Fresh db = PgJournals.fresh(DatabaseFaultCodesTest.class);
    // Every new session of this database only: other tests' databases keep theirs.
    PgJournals.execute(
        db.jdbcUrl(), "ALTER DATABASE " + db.name() + " SET statement_timeout = '1s'");
    CountingExecutor executor = new CountingExecutor();
    try (PostgresJournal journal = PgJournals.journal(db);
        Connection locker = DriverManager.getConnection(db.jdbcUrl())) {
      Worker worker = worker(journal, executor);
      worker.start();
      try {
        String before = written(db.jdbcUrl());
        locker.setAutoCommit(false);
        try (Statement st = locker.createStatement()) {
          st.execute("SET LOCAL statement_timeout = 0");
          st.execute("LOCK TABLE flows.runs, flows.steps IN ACCESS EXCLUSIVE MODE");
        }
        FlowsException e =
            catchThrowableOfType(
                FlowsException.class, () -> journal.admit(oneStepRun(), Admit.queued()));
        assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
        assertThat(e.retryable()).isTrue();
        assertThat(e.getMessage()).contains("statement timeout", "57014");
        assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("statement_timeout"));
        // The worker's claims meet the same timeout meanwhile (retried, logged).
        Thread.sleep(1500);
        locker.rollback();
        assertThat(written(db.jdbcUrl())).isEqualTo(before);

        RunRef run =
            new ResilientJournal(journal, WorkerConfig.defaults())
                .admit(oneStepRun(), Admit.queued())
                .runId();
        assertSucceedsOnce(journal, run);
        assertThat(executor.executed).hasValue(1);
      } finally {
        worker.stop();
      }
    }
  }

  /**
   * A hook of this test's database only: the first row inserted into {@code table} that {@code
   * condition} admits waits for advisory lock {@code HOOK_LOCK}, which the test holds, so that the
   * test can end that backend while its transaction has written and is still open. A sequence, not
   * a table, counts the firings: it is not rolled back with the transaction.
   */
  static final long HOOK_LOCK = 424_242;

  static void installHook(String jdbcUrl, String table, String condition) {
    PgJournals.execute(jdbcUrl, "CREATE SEQUENCE public.fault_hook_firings");
    PgJournals.execute(
        jdbcUrl,
        "CREATE FUNCTION public.fault_hook() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " IF nextval('public.fault_hook_firings') = 1 THEN PERFORM pg_advisory_xact_lock("
            + HOOK_LOCK
            + "); END IF; RETURN NEW; END $$");
    PgJournals.execute(
        jdbcUrl,
        "CREATE TRIGGER fault_hook AFTER INSERT ON "
            + table
            + " FOR EACH ROW WHEN ("
            + condition
            + ") EXECUTE FUNCTION public.fault_hook()");
  }

  /** Waits for the backend stopped in the hook, checks it holds written rows, and ends it. */
  static void terminateTheHookedBackend(String jdbcUrl) {
    String hooked =
        "SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            + " WHERE l.locktype = 'advisory' AND NOT l.granted AND a.datname = current_database()"
            + " AND a.backend_xid IS NOT NULL";
    await().atMost(WAIT).until(() -> PgJournals.execute(jdbcUrl, hooked) == 1);
    assertThat(
            PgJournals.execute(jdbcUrl, "SELECT pg_terminate_backend(pid) FROM (" + hooked + ") h"))
        .isEqualTo(1);
  }

  @Test
  void aConnectionDroppedInsideAVerbsTransactionFailsItWithACodeAndWritesNothing()
      throws Exception {
    TestDatabase.Fresh db = PgJournals.fresh(DatabaseFaultCodesTest.class);
    installHook(db.jdbcUrl(), "flows.steps", "true");
    try (PostgresJournal journal = PgJournals.journal(db);
        Connection holder = DriverManager.getConnection(db.jdbcUrl())) {
      String before = written(db.jdbcUrl());
      try (Statement st = holder.createStatement()) {
        st.execute("SELECT pg_advisory_lock(" + HOOK_LOCK + ")");
      }
      CompletableFuture<RunRef> admitted =
          CompletableFuture.supplyAsync(() -> journal.admit(oneStepRun(), Admit.queued()).runId());
      terminateTheHookedBackend(db.jdbcUrl());
      ExecutionException failed = catchThrowableOfType(ExecutionException.class, admitted::get);
      FlowsException e = (FlowsException) failed.getCause();
      assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
      assertThat(e.retryable()).isTrue();
      assertThat(written(db.jdbcUrl())).isEqualTo(before);
      try (Statement st = holder.createStatement()) {
        st.execute("SELECT pg_advisory_unlock(" + HOOK_LOCK + ")");
      }
      // The pool replaced the dead connection: the same journal admits and a worker runs it.
      CountingExecutor executor = new CountingExecutor();
      RunRef run = journal.admit(oneStepRun(), Admit.queued()).runId();
      Worker worker = worker(journal, executor);
      worker.start();
      try {
        assertSucceedsOnce(journal, run);
        assertThat(executor.executed).hasValue(1);
      } finally {
        worker.stop();
      }
    }
  }

  @Test
  void anAttemptWhoseCompletionLostItsConnectionMidTransactionEndsOnceWithoutARestart()
      throws Exception {
    TestDatabase.Fresh db = PgJournals.fresh(DatabaseFaultCodesTest.class);
    installHook(db.jdbcUrl(), "flows.journal_entries", "NEW.entry_type = 'step.completed'");
    CountingExecutor executor = new CountingExecutor();
    try (PostgresJournal journal = PgJournals.journal(db);
        Connection holder = DriverManager.getConnection(db.jdbcUrl())) {
      try (Statement st = holder.createStatement()) {
        st.execute("SELECT pg_advisory_lock(" + HOOK_LOCK + ")");
      }
      RunRef run = journal.admit(oneStepRun(), Admit.queued()).runId();
      Worker worker = worker(journal, executor);
      worker.start();
      try {
        terminateTheHookedBackend(db.jdbcUrl());
        try (Statement st = holder.createStatement()) {
          st.execute("SELECT pg_advisory_unlock(" + HOOK_LOCK + ")");
        }
        assertSucceedsOnce(journal, run);
        assertThat(executor.executed).as("the step's work, done once").hasValue(1);
        assertThat(
                scalar(
                    db.jdbcUrl(),
                    "SELECT count(*) FROM flows.journal_entries WHERE entry_type = 'step.completed'"))
            .isEqualTo(1);
        RunRef next = journal.admit(oneStepRun(), Admit.queued()).runId();
        assertSucceedsOnce(journal, next);
      } finally {
        worker.stop();
      }
    }
  }
}
