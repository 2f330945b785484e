package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAndWait;
import static dev.flows.ops.bench.Runs.awaitEnded;
import static dev.flows.ops.bench.Runs.count;
import static dev.flows.ops.bench.Runs.running;
import static dev.flows.ops.bench.Runs.stepsInput;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.StartRun;
import dev.flows.sdk.Flow;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.Lowering;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Admitting runs and waiting for them, shared by the sections: each section's workload is admitted
 * through these and timed until its last run ended.
 */
final class Runs {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(5);

  /** How often {@link #awaitEnded} reads the runs' status when nothing woke it. */
  private static final Duration END_POLL = Duration.ofMillis(20);

  /** Measured rounds of each f.step concurrency; the report gives their median. */
  static final int STEP_ROUNDS = 3;

  private Runs() {}

  static ObjectNode stepsInput(String id, int n) {
    return JSON.objectNode().put("id", id).put("n", n);
  }

  static ObjectNode mcpInput(String server, int n) {
    return JSON.objectNode().put("server", server).put("n", n);
  }

  /** One unmeasured round of a workload. */
  @FunctionalInterface
  interface Round {
    void run() throws Exception;
  }

  /** Repeats {@code round} (at least once) until {@code seconds} have passed. */
  static void warmUp(double seconds, Round round) throws Exception {
    long until = System.nanoTime() + (long) (seconds * 1e9);
    do {
      round.run();
    } while (System.nanoTime() < until);
  }

  /**
   * Admits {@code flows} f.step flows of {@code n} steps through {@code admitter}, {@link
   * #STEP_ROUNDS} times, and answers the median steps/s: one round is a fraction of a second to a
   * few seconds on a shared machine.
   */
  static double medianStepRate(
      String url, FlowsEngine admitter, int flows, int n, String prefix, String label)
      throws Exception {
    List<Double> rates = new ArrayList<>();
    for (int r = 0; r < STEP_ROUNDS; r++) {
      String round = prefix + r + "-";
      double secs =
          admitAndWait(url, admitter, BenchFlows.STEPS, flows, i -> stepsInput(round + i, n));
      rates.add(flows * n / secs);
    }
    double rate = rates.stream().sorted().toList().get(STEP_ROUNDS / 2);
    log(label + " " + (int) rate + " steps/s (rounds " + rates + ")");
    return rate;
  }

  /** Admits {@code count} runs of {@code flow} at once and answers seconds until all ended. */
  static double admitAndWait(
      String url,
      FlowsEngine engine,
      Flow flow,
      int count,
      java.util.function.IntFunction<ObjectNode> input)
      throws Exception {
    return admitAndWait(url, engine, flow, count, input, Inventory.empty());
  }

  static double admitAndWait(
      String url,
      FlowsEngine engine,
      Flow flow,
      int count,
      java.util.function.IntFunction<ObjectNode> input,
      Inventory inventory)
      throws Exception {
    long t0 = System.nanoTime();
    List<RunRef> runs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      runs.add(
          engine.admit(Engines.loaded(flow), input.apply(i), Optional.empty(), inventory).runId());
    }
    awaitEnded(url, runs, Optional.of(engine.journal()));
    return (System.nanoTime() - t0) / 1e9;
  }

  /**
   * Polls (every {@link #END_POLL}, on its own connection) until every run has ended; fails unless
   * all succeeded. Answers how many polling transactions it made, so commit counts can leave them
   * out.
   */
  static long awaitEnded(String url, List<RunRef> runs) throws Exception {
    return awaitEnded(url, runs, Optional.empty());
  }

  /**
   * As {@link #awaitEnded(String, List)}, woken between polls by {@code watchVia}'s run watches (at
   * once when the run ended through that journal instance, else by its NOTIFY), so a timed window
   * ends when its last run does, not up to a poll interval later: a poll every 20 ms added 10 ms on
   * average to windows of 50-100 ms. The poll interval stays the fallback.
   */
  static long awaitEnded(String url, List<RunRef> runs, Optional<Journal> watchVia)
      throws Exception {
    long polls = 0;
    long until = System.nanoTime() + RUN_TIMEOUT.toNanos();
    // Opened before the first read, so no end after that read goes unseen.
    List<RunWatch> watches = new ArrayList<>();
    watchVia.ifPresent(j -> runs.forEach(r -> watches.add(j.watchRun(r))));
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement("SELECT run_id, status FROM flows.runs WHERE run_id = ANY (?)")) {
      Array ids = c.createArrayOf("text", runs.stream().map(RunRef::value).toArray());
      ps.setArray(1, ids);
      while (System.nanoTime() < until) {
        polls++;
        Optional<RunRef> running = Optional.empty();
        long found = 0;
        long failed = 0;
        try (ResultSet r = ps.executeQuery()) {
          while (r.next()) {
            found++;
            String status = r.getString(2);
            if (status.equals("running")) {
              running = running.isPresent() ? running : Optional.of(new RunRef(r.getString(1)));
            } else if (!status.equals("succeeded")) {
              failed++;
            }
          }
        }
        if (running.isEmpty() && found == runs.size()) {
          if (failed > 0) {
            throw new IllegalStateException(
                failed + " of " + runs.size() + " runs did not succeed");
          }
          return polls;
        }
        if (running.isEmpty() || watches.isEmpty()) {
          Thread.sleep(END_POLL.toMillis());
        } else {
          watches.get(runs.indexOf(running.get())).await(END_POLL);
        }
      }
    } finally {
      watches.forEach(RunWatch::close);
    }
    throw new IllegalStateException("runs did not end within " + RUN_TIMEOUT);
  }

  static List<RunRef> admitCommands(Journal journal, int count) throws Exception {
    var spec = Lowering.command("bench", List.of("true"), false, SdkConfig.DEFAULTS);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<RunRef>> fs = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        fs.add(
            pool.submit(
                () ->
                    journal
                        .admit(
                            new StartRun(
                                Optional.empty(),
                                "noop:" + UUID.randomUUID(),
                                spec,
                                Optional.empty(),
                                "bench"),
                            Admit.queued())
                        .runId()));
      }
      List<RunRef> out = new ArrayList<>();
      for (Future<RunRef> f : fs) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdown();
    }
  }

  /** Admits {@code n} runs of {@code flow} with {@code input}, from 8 threads. */
  static void admitAll(String url, int n, LoadedFlow flow, JsonNode input, Inventory inv)
      throws Exception {
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      FlowsEngine admitter = Engines.engine(journal, 1, DEFAULT_LEASE);
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        fs.add(pool.submit(() -> admitter.admit(flow, input, Optional.empty(), inv)));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      pool.shutdown();
      admitter.close();
    }
  }

  /** Turns autovacuum off for every table of the flows schema (a DO block: one statement). */
  static final String NO_AUTOVACUUM =
      "DO $$ DECLARE t text; BEGIN FOR t IN SELECT tablename FROM pg_tables"
          + " WHERE schemaname = 'flows' LOOP EXECUTE format("
          + "'ALTER TABLE flows.%I SET (autovacuum_enabled = off, toast.autovacuum_enabled = off)',"
          + " t); END LOOP; END $$";

  static long running(String url) throws Exception {
    return count(url, "SELECT count(*) FROM flows.steps WHERE status = 'running'");
  }

  /** Bodies that gave their attempt back while their call runs (SdkConfig.suspendAfter). */
  static long suspended(String url) throws Exception {
    return count(
        url,
        "SELECT count(*) FROM flows.steps WHERE status = 'ready' AND last_reason = 'suspended'");
  }

  /** Attempts the journal ended because their lease ran out (a worker that fell behind). */
  static long leasesExpired(String url) throws Exception {
    return count(
        url,
        "SELECT count(*) FROM flows.journal_entries"
            + " WHERE entry_type = 'step.completed' AND payload ->> 'reason' = 'lease_expired'");
  }

  static long count(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        ResultSet r = c.createStatement().executeQuery(sql)) {
      r.next();
      return r.getLong(1);
    }
  }
}
