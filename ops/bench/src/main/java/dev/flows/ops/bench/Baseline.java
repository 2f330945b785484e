package dev.flows.ops.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * The physical limits of this Postgres on this disk, measured in the same run as the engine: one
 * single-row INSERT per transaction, and one single-statement SKIP LOCKED claim per transaction.
 */
final class Baseline {
  record Result(double perSecond, Stats latency) {}

  private Baseline() {}

  static void prepare(String url, int queueRows) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS bench_insert (id bigserial PRIMARY KEY,"
              + " at timestamptz NOT NULL DEFAULT now(), payload text NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS bench_queue (id bigserial PRIMARY KEY,"
              + " state int NOT NULL DEFAULT 0, owner text)");
      s.execute("CREATE INDEX IF NOT EXISTS bench_queue_ready ON bench_queue (id) WHERE state = 0");
      s.execute("TRUNCATE bench_queue");
      s.execute(
          "INSERT INTO bench_queue (state) SELECT 0 FROM generate_series(1, " + queueRows + ")");
      s.execute("VACUUM ANALYZE bench_queue");
    }
  }

  static Result inserts(String url, int concurrency, double seconds) throws Exception {
    return timed(
        url,
        concurrency,
        seconds,
        "INSERT INTO bench_insert (payload) VALUES (?)",
        (ps, worker) -> {
          ps.setString(1, "w" + worker);
          ps.executeUpdate();
        });
  }

  static Result claims(String url, int concurrency, double seconds) throws Exception {
    return timed(
        url,
        concurrency,
        seconds,
        "UPDATE bench_queue SET state = 1, owner = ? WHERE id = (SELECT id FROM bench_queue"
            + " WHERE state = 0 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id",
        (ps, worker) -> {
          ps.setString(1, "w" + worker);
          try (ResultSet r = ps.executeQuery()) {
            if (!r.next()) {
              throw new IllegalStateException("the claim queue ran dry; prefill more rows");
            }
          }
        });
  }

  @FunctionalInterface
  interface Op {
    void run(PreparedStatement ps, int worker) throws Exception;
  }

  /** Each thread owns one autocommit connection: every statement is its own commit. */
  private static Result timed(String url, int concurrency, double seconds, String sql, Op op)
      throws Exception {
    return loop(
        concurrency,
        seconds,
        (worker, end, record) -> {
          try (Connection c = DriverManager.getConnection(url);
              PreparedStatement ps = c.prepareStatement(sql)) {
            long t;
            while ((t = System.nanoTime()) < end) {
              op.run(ps, worker);
              record.accept(System.nanoTime() - t);
            }
          }
        });
  }

  /** The body of one load thread: runs until {@code endNanos}, recording each operation's time. */
  @FunctionalInterface
  interface LoadThread {
    void run(int worker, long endNanos, java.util.function.LongConsumer record) throws Exception;
  }

  /** Runs {@code concurrency} platform threads for {@code seconds}; answers ops/s and latency. */
  static Result loop(int concurrency, double seconds, LoadThread body) throws Exception {
    LongAdder done = new LongAdder();
    ConcurrentLinkedQueue<Long> nanos = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    List<Exception> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    for (int i = 0; i < concurrency; i++) {
      int worker = i;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      body.run(
                          worker,
                          end,
                          n -> {
                            nanos.add(n);
                            done.increment();
                          });
                    } catch (Exception e) {
                      errors.add(e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    if (!errors.isEmpty()) {
      throw errors.getFirst();
    }
    double elapsed = (System.nanoTime() - start) / 1e9;
    return new Result(done.sum() / elapsed, Stats.of(nanos));
  }
}
