package dev.flows.ops.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs as an application makes them: {@code c} client threads, each starting a run and waiting for
 * its result, then starting the next, until {@code n} runs have ended; and the commits a database
 * counted over one engine lifetime. Shared by the short-runs sections of both engines.
 */
final class ClientLoad {
  private ClientLoad() {}

  /** A run whose result did not come within the client's timeout: counted, not fatal. */
  static final class Unanswered extends Exception {
    Unanswered(String runId) {
      super("no result for run " + runId, null, false, false);
    }
  }

  /**
   * Starts the run named {@code id}, waits for its result, and answers the engine's run id; throws
   * {@link Unanswered} when the result did not come in time.
   */
  @FunctionalInterface
  interface Client {
    String startAndWait(String id) throws Exception;
  }

  /** One run as its caller saw it: {@link System#nanoTime} at start and when the result came. */
  record Sample(String id, String runId, long startNanos, long resultNanos) {
    long totalNanos() {
      return resultNanos - startNanos;
    }
  }

  /**
   * The samples of one load, the seconds from its first start to its last result, and the runs left
   * without a result.
   */
  record Load(List<Sample> samples, double seconds, long unanswered) {
    double runsPerSecond() {
      return samples.size() / seconds;
    }

    Stats total() {
      return Stats.of(samples.stream().map(Sample::totalNanos).toList());
    }
  }

  /** {@code c} threads start runs until {@code n} have started. */
  static Load run(int c, int n, String prefix, Client client) throws Exception {
    return run(c, n, Long.MAX_VALUE, prefix, client);
  }

  /**
   * {@code c} threads start runs until {@code seconds} have passed since the first (each thread at
   * least one): a load as long on a slow shape as on a fast one.
   */
  static Load during(int c, double seconds, String prefix, Client client) throws Exception {
    return run(c, Integer.MAX_VALUE, System.nanoTime() + (long) (seconds * 1e9), prefix, client);
  }

  private static Load run(int c, int n, long until, String prefix, Client client) throws Exception {
    AtomicInteger next = new AtomicInteger();
    ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();
    LongAdder unanswered = new LongAdder();
    ExecutorService threads = Executors.newFixedThreadPool(c);
    try {
      long t0 = System.nanoTime();
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < c; t++) {
        fs.add(
            threads.submit(
                () -> {
                  int i;
                  boolean first = true;
                  while ((first || System.nanoTime() < until) && (i = next.getAndIncrement()) < n) {
                    first = false;
                    String id = prefix + i;
                    long start = System.nanoTime();
                    try {
                      String run = client.startAndWait(id);
                      samples.add(new Sample(id, run, start, System.nanoTime()));
                    } catch (Unanswered e) {
                      unanswered.increment();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      return new Load(List.copyOf(samples), (System.nanoTime() - t0) / 1e9, unanswered.sum());
    } finally {
      threads.shutdown();
    }
  }

  /** One engine lifetime: built, used, closed (its pool's backends exit and flush statistics). */
  @FunctionalInterface
  interface Lifetime {
    void run() throws Exception;
  }

  /**
   * Transactions ({@code xact_commit}, reads included) the database {@code url} counted over {@code
   * lifetime}, less the bench's own read of the counters ({@code perRead}, from {@link #perRead}).
   */
  static long commitsOver(Pg pg, String url, long perRead, Lifetime lifetime) throws Exception {
    return countersOver(pg, url, perRead, lifetime).commits();
  }

  /**
   * As {@link #commitsOver}, with the transaction ids handed out over {@code lifetime} (write
   * transactions, each a WAL flush at commit; the server's, so only while nothing else writes).
   */
  static Pg.Counters countersOver(Pg pg, String url, long perRead, Lifetime lifetime)
      throws Exception {
    Pg.Counters a = pg.counters(url);
    lifetime.run();
    Pg.settleStats();
    Pg.Counters d = pg.counters(url).minus(a);
    return new Pg.Counters(d.commits() - perRead, d.writes());
  }

  /** An engine opened for one lifetime: how its clients start runs, and how it closes. */
  record Opened(Client client, AutoCloseable engine) {}

  @FunctionalInterface
  interface Opener {
    Opened open() throws Exception;
  }

  /**
   * One measured load, the commits per run of its lifetime, and its write transactions per run (the
   * lifetime's own fixed writes included).
   */
  record Counted(Load load, double commitsPerRun, double writesPerRun) {}

  /** The database an engine lifetime is counted on, and what one read of its counters adds. */
  record Database(Pg pg, String url, long perRead) {
    Counted measure(long fixed, String mode, int c, String prefix, Opener opener) throws Exception {
      return ClientLoad.measure(pg, url, perRead, fixed, mode, c, prefix, opener);
    }
  }

  /**
   * One engine lifetime ({@code opener}) measured: a load of {@code c} clients for {@link
   * #loadSeconds}, after {@link #settleSeconds} of unmeasured runs (at least one per client: the
   * pool's connections, any MCP session and the engine's own start-up work happen there, not in the
   * measured runs); commits per run less the lifetime's {@code fixed} cost, over every run it made.
   */
  private static Counted measure(
      Pg pg, String url, long perRead, long fixed, String mode, int c, String prefix, Opener opener)
      throws Exception {
    Load[] load = new Load[2];
    Pg.Counters counted =
        countersOver(
            pg,
            url,
            perRead,
            () -> {
              Opened o = opener.open();
              try (AutoCloseable engine = o.engine()) {
                load[1] = during(c, settleSeconds(mode), prefix + "w", o.client());
                load[0] = during(c, loadSeconds(mode), prefix, o.client());
              }
            });
    long runs =
        load[0].samples().size()
            + load[0].unanswered()
            + load[1].samples().size()
            + load[1].unanswered();
    return new Counted(
        load[0], (double) (counted.commits() - fixed) / runs, (double) counted.writes() / runs);
  }

  /** What one read of the counters adds to them. */
  static long perRead(Pg pg, String url) throws Exception {
    Pg.Counters a = pg.counters(url);
    Pg.settleStats();
    return pg.counters(url).minus(a).commits();
  }

  /**
   * How long a client waits for one result in {@code mode}: a run whose MCP call got no answer (the
   * stdio server under concurrent load) waits for the call's own timeout, and is counted instead.
   */
  static java.time.Duration resultTimeout(String mode) {
    return java.time.Duration.ofSeconds(mode.equals("full") ? 60 : 10);
  }

  /**
   * Seconds of unmeasured runs at the start of each engine lifetime in {@code mode}: a fresh engine
   * (this one's {@code Flows}, a {@code DBOS}) starts its pool and its background work while its
   * first runs are made, both engines alike.
   */
  static double settleSeconds(String mode) {
    return switch (mode) {
      case "smoke" -> 0;
      case "quick" -> 0.5;
      default -> 1;
    };
  }

  /** Seconds of one measured load in {@code mode}. */
  static double loadSeconds(String mode) {
    return switch (mode) {
      case "smoke" -> 0.2;
      case "quick" -> 2;
      default -> 10;
    };
  }
}
