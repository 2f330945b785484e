package dev.flows.journalstore;

import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.WakeCounter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Holds one dedicated connection that LISTENs on {@code flows_work} and turns notifications into
 * wake-ups. Each waiting thread remembers the last wake-up it saw, so a notification that arrives
 * between a thread's empty claim and its next wait still wakes it (at the price of spurious
 * wake-ups, which the port allows).
 */
final class WorkListener implements AutoCloseable {
  /** Opens the listening connection: where the server is may change between reconnects. */
  @FunctionalInterface
  interface Connector {
    Connection open() throws SQLException;

    /** Connects to {@code config}'s URL with its credentials. */
    static Connector of(JournalStoreConfig config) {
      return () -> {
        Properties p = new Properties();
        config.user().ifPresent(u -> p.setProperty("user", u));
        config.password().ifPresent(pw -> p.setProperty("password", pw));
        p.setProperty("ApplicationName", "flows-work-listener");
        return DriverManager.getConnection(config.jdbcUrl(), p);
      };
    }
  }

  private final JournalStoreConfig config;
  private final Connector connector;
  private final boolean pooled;
  private final Object monitor = new Object();
  private final ThreadLocal<long[]> seen = ThreadLocal.withInitial(() -> new long[] {0});
  private final CountDownLatch firstListen = new CountDownLatch(1);
  private Thread thread; // guarded by this; null until the listener starts
  private long generation; // guarded by monitor
  private volatile boolean closed;
  private volatile Connection current;
  private final Map<String, Set<RunWatchImpl>> watches = new ConcurrentHashMap<>();
  private final SessionCheck sessions;

  /** Run changes that leave nothing to claim: they wake the run's watchers, not claimers. */
  static final String RUNS_CHANNEL = "flows_runs";

  WorkListener(JournalStoreConfig config, Connector connector) {
    this(config, connector, false);
    start();
  }

  /**
   * A listener that connects only when something first waits or watches ({@link #await}, {@link
   * #watch}): for a journal that serves one short command, which mostly never does. Wake-ups count
   * from that first call, and the transaction-pooler check runs then.
   */
  static WorkListener lazy(JournalStoreConfig config, Connector connector) {
    return new WorkListener(config, connector, false);
  }

  /**
   * Listens on a connection taken from {@code pool} and held for the listener's life: for a pool
   * whose URL and credentials the journal is not given. It goes back with {@code UNLISTEN *}, and
   * is never closed under a reader (a pool's proxy is not safe to close from another thread), so a
   * close waits up to one poll interval.
   */
  WorkListener(JournalStoreConfig config, javax.sql.DataSource pool) {
    this(config, pool::getConnection, true);
    start();
  }

  private WorkListener(JournalStoreConfig config, Connector connector, boolean pooled) {
    this.config = config;
    this.connector = connector;
    this.pooled = pooled;
    this.sessions = new SessionCheck(config.jdbcUrl());
  }

  /** Starts listening (once) and returns when LISTEN holds, or after the connection timeout. */
  private void start() {
    synchronized (this) {
      if (thread != null || closed) {
        return;
      }
      thread = Thread.ofPlatform().daemon().name("flows-work-listener").start(this::loop);
    }
    try {
      // Wake-ups only count from when LISTEN holds; waiting here makes that "from the start".
      firstListen.await(config.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  boolean await(Duration timeout) throws InterruptedException {
    start();
    long[] mine = seen.get();
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (monitor) {
      while (generation == mine[0]) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, left);
      }
      mine[0] = generation;
      return true;
    }
  }

  private void loop() {
    boolean reconnect = false;
    while (!closed) {
      try (Connection c = connector.open();
          Statement st = c.createStatement()) {
        current = c;
        st.execute(Sql.text("listen_work"));
        st.execute(Sql.text("listen_runs"));
        if (transactionPooled(c)) {
          // Nothing heard on this connection can be trusted; the journal refuses its verbs.
          firstListen.countDown();
          pause();
          continue;
        }
        firstListen.countDown();
        if (reconnect) {
          // Notifications sent while we were disconnected are lost: wake everyone to re-check.
          wake();
          watches.values().forEach(ws -> ws.forEach(RunWatchImpl::signal));
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        while (!closed) {
          PGNotification[] ns = pg.getNotifications((int) config.listenPollInterval().toMillis());
          if (ns != null && ns.length > 0) {
            boolean work = false;
            for (PGNotification n : ns) {
              work |= !RUNS_CHANNEL.equals(n.getName());
              changed(n.getParameter());
            }
            if (work) {
              wake();
            }
          }
        }
        if (pooled) {
          st.execute(Sql.text("unlisten_all"));
        }
      } catch (SQLException | RuntimeException e) {
        // A server that is away (or a connector that cannot say where it is) is retried alike.
        reconnect = true;
        if (!closed) {
          pause();
        }
      }
    }
  }

  /** Whether {@code listening} shares server sessions with other connections; see SessionCheck. */
  private boolean transactionPooled(Connection listening) throws SQLException {
    Connection other;
    try {
      other = connector.open();
    } catch (SQLException e) {
      // No second connection to test with (a full pool): the listening one alone cannot tell.
      return false;
    }
    try (other) {
      return sessions.judge(listening, other);
    }
  }

  /** What the listener's last connect found of the server sessions behind the journal's URL. */
  SessionCheck sessions() {
    return sessions;
  }

  private void wake() {
    synchronized (monitor) {
      generation++;
      monitor.notifyAll();
    }
  }

  private void pause() {
    try {
      Thread.sleep(config.listenReconnectDelay());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }

  @Override
  public void close() {
    Thread listening;
    synchronized (this) {
      closed = true;
      listening = thread;
    }
    if (listening == null) {
      return;
    }
    Connection c = current;
    if (c != null && !pooled) {
      try {
        // Unblocks getNotifications at once instead of after a poll interval.
        c.close();
      } catch (SQLException e) {
        // Closing a connection that is already broken: nothing more to release.
      }
    }
    try {
      listening.join(config.listenPollInterval().multipliedBy(2).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------- run watches

  /** A watch on one run id; the NOTIFY payload is the run id, so it wakes for that run only. */
  RunWatch watch(String runId) {
    start();
    RunWatchImpl w = new RunWatchImpl(runId);
    watches.computeIfAbsent(runId, k -> ConcurrentHashMap.newKeySet()).add(w);
    return w;
  }

  /** Wakes the watchers of {@code runId}: a NOTIFY arrived, or this process changed the run. */
  void changed(String runId) {
    Set<RunWatchImpl> ws = watches.get(runId);
    if (ws != null) {
      ws.forEach(RunWatchImpl::signal);
    }
  }

  private final class RunWatchImpl implements RunWatch {
    private final String runId;
    private final WakeCounter wakes = new WakeCounter();

    RunWatchImpl(String runId) {
      this.runId = runId;
    }

    void signal() {
      wakes.signal();
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
      return wakes.await(timeout);
    }

    @Override
    public void close() {
      watches.computeIfPresent(
          runId,
          (k, ws) -> {
            ws.remove(this);
            return ws.isEmpty() ? null : ws;
          });
    }
  }
}
