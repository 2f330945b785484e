package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.testing.Pgbouncer;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.StepKind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Postgres journal through Debian's pgbouncer, in session and in transaction pool mode. */
class PgbouncerTest {
  private static final WorkerId WORKER = new WorkerId("w-bouncer");
  private static TestDatabase.Fresh db;
  private static Pgbouncer session;
  private static Pgbouncer transaction;

  @BeforeAll
  static void start() {
    db = TestDatabase.fresh("pgbouncer");
    session = Pgbouncer.start(db, Pgbouncer.Mode.SESSION);
    transaction = Pgbouncer.start(db, Pgbouncer.Mode.TRANSACTION);
  }

  @AfterAll
  static void stop() {
    session.close();
    transaction.close();
  }

  private static JournalStoreConfig config(String url) {
    return new JournalStoreConfig(
        url,
        Optional.empty(),
        Optional.empty(),
        PostgresFixture.POOL_SIZE,
        JournalStoreConfig.DEFAULT_CONNECTION_TIMEOUT,
        Duration.ofMillis(100),
        Duration.ofMillis(200),
        JournalStoreConfig.DEFAULT_EXPIRY_BATCH_SIZE);
  }

  @Test
  void inSessionModeEveryVerbWorksPastPreparedStatementsAndANotifyFromAnotherServerSessionWakesIt()
      throws Exception {
    try (PostgresJournal direct = PostgresJournal.connect(config(db.jdbcUrl()));
        PostgresJournal bounced = PostgresJournal.connect(config(session.jdbcUrl(db)))) {
      // pgjdbc prepares a statement on the server from its fifth use: ten runs pass that.
      for (int i = 0; i < 10; i++) {
        while (bounced.awaitWork(Duration.ofMillis(1))) {
          // Wake-ups of earlier commits, seen before this round's NOTIFY is waited for.
        }
        direct.admit(StartRun.of("s" + i, Specs.run("one", Specs.llm("a"))), Admit.queued());
        assertThat(bounced.awaitWork(Duration.ofSeconds(10)))
            .as("the NOTIFY of a run admitted directly reaches the listener behind pgbouncer")
            .isTrue();
        List<ClaimedAttempt> claimed =
            bounced.claim(
                new ClaimRequest(WORKER, Set.of(StepKind.values()), 1, Duration.ofSeconds(30)));
        assertThat(claimed).hasSize(1);
        assertThat(
                bounced
                    .complete(
                        claimed.getFirst().lease(),
                        new StepOutcome.Succeeded(JsonNodeFactory.instance.textNode("ok")))
                    .runStatus())
            .isEqualTo(RunStatus.SUCCEEDED);
      }
    }
  }

  @Test
  void inTransactionModeConnectRefusesWithOneLineConfigInvalidBeforeAnyVerbEveryTime() {
    for (int i = 0; i < 5; i++) {
      assertThatThrownBy(() -> PostgresJournal.connect(config(transaction.jdbcUrl(db) + "&x=1")))
          .isInstanceOfSatisfying(
              FlowsException.class,
              e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID);
                assertThat(e.oneLine())
                    .doesNotContain("\n")
                    .contains("transaction mode")
                    .contains("(at jdbc:postgresql://127.0.0.1:" + transaction.port() + "/")
                    .contains("fix: set pool_mode = session")
                    .doesNotContain("x=1");
              });
    }
  }

  @Test
  void theSessionCheckTellsTransactionPoolingFromASessionPerConnection() throws Exception {
    assertThat(judged(db.jdbcUrl())).as("Postgres directly").isFalse();
    assertThat(judged(session.jdbcUrl(db))).as("pgbouncer, session mode").isFalse();
    assertThat(judged(transaction.jdbcUrl(db))).as("pgbouncer, transaction mode").isTrue();
  }

  private static boolean judged(String url) throws Exception {
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url)) {
      return new SessionCheck(url).judge(a, b);
    }
  }

  @Test
  void
      aPoolerSwitchedToTransactionModeUnderARunningJournalMakesItsVerbsRefuseUntilSessionModeIsBack()
          throws Exception {
    try (Pgbouncer moving = Pgbouncer.start(db, Pgbouncer.Mode.SESSION);
        PostgresJournal journal = PostgresJournal.connect(config(moving.jdbcUrl(db)))) {
      RunRef before =
          journal
              .admit(StartRun.of("before", Specs.run("one", Specs.llm("a"))), Admit.queued())
              .runId();
      moving.restart(Pgbouncer.Mode.TRANSACTION);
      awaitRefusal(journal, true);
      moving.restart(Pgbouncer.Mode.SESSION);
      awaitRefusal(journal, false);
      assertThat(journal.run(before).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    }
  }

  /**
   * Waits until a verb is refused with {@code config_invalid} ({@code refused}) or answers (not); a
   * pooled connection that the restart cut off fails on its own first, which says neither.
   */
  private static void awaitRefusal(PostgresJournal journal, boolean refused) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < until) {
      try {
        journal.untilNextLeaseDeadline();
        journal.untilNextLeaseDeadline();
        if (!refused) {
          return;
        }
      } catch (FlowsException e) {
        if (refused && e.code() == ErrorCode.CONFIG_INVALID) {
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the journal's verbs never " + (refused ? "refused" : "worked again"));
  }
}
