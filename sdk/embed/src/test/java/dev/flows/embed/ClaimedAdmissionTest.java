package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.RunId;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A run started by a process whose worker has a free slot is admitted already claimed by it, and
 * its result handed to a waiter in that process; other starts keep the claim path.
 */
class ClaimedAdmissionTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private HikariDataSource pool;
  private ThreadCountingDataSource counted;

  @BeforeEach
  void pool() {
    TestDatabase.Fresh db = TestDatabase.fresh("embed_claimed");
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(db.jdbcUrl());
    hc.setMaximumPoolSize(12);
    pool = new HikariDataSource(hc);
    counted = new ThreadCountingDataSource(pool);
  }

  @AfterEach
  void closePool() {
    pool.close();
  }

  @Test
  void aRunStartedWhereTheWorkerHasAFreeSlotIsAdmittedClaimedInTheAdmissionsTransaction()
      throws Exception {
    try (Flows flows = settledWorker()) {
      RunHandle<JsonNode> h =
          flows.start(
              TestFlows.Shout.class, TestFlows.json(Map.of("text", "hi")), StartOptions.key("c1"));
      assertThat(h.result(WAIT).path("text").asText()).isEqualTo("HI");
      List<JournalRecord> entries = flows.journal().entries(Boundary.ref(h.runId()));
      assertThat(entries.get(0).entry()).isInstanceOf(JournalEntry.RunSpawned.class);
      assertThat(entries.get(1).entry()).isInstanceOf(JournalEntry.StepAttemptStarted.class);
      // One transaction, one clock reading: a claim would be a later transaction.
      assertThat(entries.get(1).at()).isEqualTo(entries.get(0).at());
      assertThat(((JournalEntry.StepAttemptStarted) entries.get(1).entry()).attempt()).isEqualTo(1);
    }
  }

  @Test
  void theCallerGetsTheResultOfARunItsWorkerEndedWithoutReadingTheJournal() throws Exception {
    try (Flows flows = settledWorker()) {
      RunHandle<JsonNode> h =
          flows.start(
              TestFlows.Shout.class, TestFlows.json(Map.of("text", "yo")), StartOptions.key("c2"));
      int before = counted.byThisThread();
      assertThat(h.result(WAIT).path("text").asText()).isEqualTo("YO");
      assertThat(counted.byThisThread() - before).as("connections the waiter borrowed").isZero();
      // A second handle on the same run (no attempt of its own to wait for) reads the journal.
      assertThat(flows.handle(h.runId()).result(WAIT).path("text").asText()).isEqualTo("YO");
      assertThat(counted.byThisThread() - before).isPositive();
    }
  }

  @Test
  void withNoFreeSlotOrNoWorkerTheRunIsAdmittedForAClaimerAsBefore() throws Exception {
    TestFlows.Blocker.hold = true;
    TestFlows.Blocker.started = new CountDownLatch(1);
    RunId waiting;
    try (Flows flows =
        on().register(new TestFlows.Blocker())
            .register(new TestFlows.Shout())
            .worker(
                w ->
                    w.capacity(1)
                        .pollInterval(Duration.ofMillis(50))
                        .stopGrace(Duration.ofMillis(100)))
            .build()) {
      flows.start(TestFlows.Blocker.class, TestFlows.json(Map.of()), StartOptions.key("b"));
      assertThat(TestFlows.Blocker.started.await(60, TimeUnit.SECONDS)).isTrue();
      waiting =
          flows
              .start(
                  TestFlows.Shout.class, TestFlows.json(Map.of("text", "w")), StartOptions.key("w"))
              .runId();
      assertThat(
              flows.journal().run(Boundary.ref(waiting)).orElseThrow().steps().getFirst().status())
          .as("no slot was free: the run waits for a claim")
          .isEqualTo(StepStatus.READY);
    }
    TestFlows.Blocker.hold = false;
    try (Flows starter = on().register(new TestFlows.Shout()).build();
        Flows worker =
            TestFlows.withWorker(on())
                .register(new TestFlows.Shout())
                .register(new TestFlows.Blocker())
                .build()) {
      assertThat(worker.handle(waiting).result(WAIT).path("text").asText()).isEqualTo("W");
      assertThat(startedInTheAdmission(worker, Boundary.ref(waiting))).isFalse();
      RunHandle<JsonNode> h =
          starter.start(
              TestFlows.Shout.class, TestFlows.json(Map.of("text", "x")), StartOptions.key("x"));
      assertThat(h.result(WAIT).path("text").asText()).isEqualTo("X");
      assertThat(startedInTheAdmission(starter, Boundary.ref(h.runId()))).isFalse();
    }
  }

  /**
   * A worker on product defaults past its first claim: a claim in flight holds the free slots (it
   * claims up to that many), and a start meanwhile takes the claim path. One run started and waited
   * for lets the first claim pass; the next poll is a second away.
   */
  private Flows settledWorker() throws InterruptedException {
    Flows flows = on().register(new TestFlows.Shout()).worker(w -> w.capacity(4)).build();
    flows.start(TestFlows.Shout.class, TestFlows.json(Map.of("text", "warm-up"))).result(WAIT);
    return flows;
  }

  private FlowsBuilder on() {
    return Flows.builder().dataSource(counted);
  }

  /** Whether the first attempt was opened in the transaction that admitted the run. */
  private static boolean startedInTheAdmission(Flows flows, RunRef run) {
    List<JournalRecord> entries = flows.journal().entries(run);
    JournalRecord spawned = entries.getFirst();
    return entries.stream()
        .filter(r -> r.entry() instanceof JournalEntry.StepAttemptStarted)
        .findFirst()
        .map(r -> r.seq() == spawned.seq() + 1 && r.at().equals(spawned.at()))
        .orElse(false);
  }

  /** Counts the connections each thread borrows. */
  private static final class ThreadCountingDataSource implements DataSource {
    private final DataSource delegate;
    private final ThreadLocal<AtomicInteger> borrowed = ThreadLocal.withInitial(AtomicInteger::new);

    ThreadCountingDataSource(DataSource delegate) {
      this.delegate = delegate;
    }

    int byThisThread() {
      return borrowed.get().get();
    }

    @Override
    public Connection getConnection() throws SQLException {
      borrowed.get().incrementAndGet();
      return delegate.getConnection();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      borrowed.get().incrementAndGet();
      return delegate.getConnection(user, password);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
      return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
      delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
      delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
      return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      return iface.isInstance(delegate) ? iface.cast(delegate) : delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
      return iface.isInstance(delegate) || delegate.isWrapperFor(iface);
    }
  }
}
