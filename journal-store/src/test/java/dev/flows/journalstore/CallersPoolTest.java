package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.StartRun;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class CallersPoolTest {
  @Test
  void aJournalOnTheCallersPoolWorksAndLeavesThePoolOpenWhenClosed() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("callers_pool");
    JournalStoreConfig config = JournalStoreConfig.forUrl(db.jdbcUrl());
    try (HikariDataSource pool = new HikariDataSource(PostgresJournal.poolConfig(config))) {
      RunRef run;
      try (PostgresJournal journal = PostgresJournal.using(pool, config)) {
        run =
            journal
                .admit(StartRun.of("k", Specs.run("one", Specs.llm("a"))), Admit.queued())
                .runId();
        assertThat(journal.run(run)).isPresent();
      }
      assertThat(pool.isClosed()).isFalse();
      try (Connection c = pool.getConnection();
          var st = c.prepareStatement("SELECT count(*) FROM flows.runs WHERE run_id = ?")) {
        st.setString(1, run.value());
        try (var rs = st.executeQuery()) {
          rs.next();
          assertThat(rs.getLong(1)).isEqualTo(1);
        }
      }
    }
  }

  @Test
  void aJournalListeningOnTheCallersPoolWakesOnAnotherProcesssChangeAndGivesItsConnectionBack()
      throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("callers_pool_listen");
    JournalStoreConfig config = JournalStoreConfig.forUrl(db.jdbcUrl());
    var h = PostgresJournal.poolConfig(config);
    h.setMaximumPoolSize(2);
    try (HikariDataSource pool = new HikariDataSource(h);
        PostgresJournal other = PostgresJournal.connect(config)) {
      RunRef run =
          other.admit(StartRun.of("w", Specs.run("one", Specs.llm("a"))), Admit.queued()).runId();
      try (PostgresJournal journal = PostgresJournal.listeningOn(pool, config);
          RunWatch watch = journal.watchRun(run)) {
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isEqualTo(1);
        other.cancelRun(run, "elsewhere");
        assertThat(watch.await(Duration.ofSeconds(10))).as("woken by NOTIFY").isTrue();
      }
      assertThat(pool.isClosed()).isFalse();
      assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
      // Both of the pool's connections (one was the listener's) listen on nothing.
      try (Connection a = pool.getConnection();
          Connection b = pool.getConnection()) {
        for (Connection c : new Connection[] {a, b}) {
          try (var st = c.createStatement();
              var rs = st.executeQuery("SELECT count(*) FROM pg_listening_channels()")) {
            rs.next();
            assertThat(rs.getLong(1)).isZero();
          }
        }
      }
    }
  }

  @Test
  void aJournalForOneCommandListensOnlyOnceSomethingWatchesAndThenWakesOnAnotherProcesssChange()
      throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("callers_one_command");
    JournalStoreConfig config = JournalStoreConfig.forUrl(db.jdbcUrl());
    var h = PostgresJournal.poolConfig(config);
    h.setMaximumPoolSize(1);
    AtomicInteger listenerConnects = new AtomicInteger();
    try (HikariDataSource statements = new HikariDataSource(h);
        HikariDataSource server = new HikariDataSource(PostgresJournal.poolConfig(config));
        PostgresJournal other = PostgresJournal.connect(config)) {
      DataSource counted =
          (DataSource)
              Proxy.newProxyInstance(
                  DataSource.class.getClassLoader(),
                  new Class<?>[] {DataSource.class},
                  (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                      listenerConnects.incrementAndGet();
                    }
                    return method.invoke(server, args);
                  });
      try (PostgresJournal journal = PostgresJournal.forOneCommand(statements, config, counted)) {
        RunRef run =
            journal
                .admit(StartRun.of("one", Specs.run("one", Specs.llm("a"))), Admit.queued())
                .runId();
        assertThat(journal.run(run)).isPresent();
        assertThat(listenerConnects).as("no LISTEN connection for verbs").hasValue(0);
        try (RunWatch watch = journal.watchRun(run)) {
          assertThat(listenerConnects.get()).as("the watch listens").isPositive();
          other.cancelRun(run, "elsewhere");
          assertThat(watch.await(Duration.ofSeconds(10))).as("woken by NOTIFY").isTrue();
        }
      }
      assertThat(statements.isClosed()).isFalse();
    }
  }

  @Test
  void theJournalReportsCallersWaitingForAConnectionOfItsPool() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("callers_pool_gauge");
    JournalStoreConfig config = JournalStoreConfig.forUrl(db.jdbcUrl());
    var h = PostgresJournal.poolConfig(config);
    h.setMaximumPoolSize(1);
    try (HikariDataSource pool = new HikariDataSource(h);
        PostgresJournal journal = PostgresJournal.using(pool, config)) {
      assertThat(journal.waitingForConnection()).isZero();
      Thread waiter;
      try (Connection only = pool.getConnection()) {
        waiter =
            Thread.ofVirtual()
                .start(
                    () -> {
                      try (Connection c = pool.getConnection()) {
                        c.isValid(1);
                      } catch (Exception e) {
                        throw new IllegalStateException(e);
                      }
                    });
        await().atMost(Duration.ofSeconds(10)).until(() -> journal.waitingForConnection() == 1);
      }
      waiter.join(Duration.ofSeconds(10));
      assertThat(journal.waitingForConnection()).isZero();
    }
  }
}
