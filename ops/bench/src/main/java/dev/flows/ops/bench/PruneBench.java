package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.PruneRequest;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepKind;
import dev.flows.sdk.runtime.Lowering;
import dev.flows.sdk.runtime.SdkConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Retention under load: claim latency of a steady workload on a database holding {@code entries}
 * journal entries of runs that ended 40 days ago, first without pruning, then while {@code flows
 * runs prune} (30 days, batches of {@link #BATCH} roots back to back, as the command runs them)
 * removes them all.
 */
final class PruneBench {
  static final int PROBE_THREADS = 4;
  private static final WorkerId WORKER = new WorkerId("bench-prune-probe");
  private static final int ENTRIES_PER_RUN = 100;

  /** Root runs per transaction: {@code flows runs prune}'s default {@code --batch}. */
  static final int BATCH = 100;

  /** What the section measured. */
  record Result(
      long entries,
      long runs,
      Stats without,
      Stats during,
      double pruneSeconds,
      long prunedEntries,
      long prunedRuns) {
    double p99Ratio() {
      return during.p99() / without.p99();
    }
  }

  private PruneBench() {}

  /** The section ({@code prune}); a plan without entries to prune skips it. */
  static Section section(Bench.Plan plan, Pg pg, Report report) {
    return () -> {
      if (plan.pruneEntries() <= 0) {
        return;
      }
      Optional<Long> runs = PruneFill.runs(plan.mode());
      log(
          "retention: claims without and while pruning "
              + runs.map(n -> n + " runs").orElse(plan.pruneEntries() + " entries"));
      Result r =
          measure(pg, plan.pruneEntries(), runs, Duration.ofSeconds(plan.pruneWindowSeconds()));
      report.prune(r);
      log("  claim p99 " + r.without().p99() + " ms without, " + r.during().p99() + " ms during");
    };
  }

  static Result measure(Pg pg, long planned, Optional<Long> runs, Duration window)
      throws Exception {
    String url = pg.fresh("bench_prune", true);
    try {
      long entries = runs.isPresent() ? PruneFill.fill(url, runs.get()) : planned;
      if (runs.isEmpty()) {
        fill(url, planned);
      }
      long runCount = remaining(url);
      try (PostgresJournal journal =
          PostgresJournal.connect(JournalStoreConfig.forUrl(url).withPoolSize(PROBE_THREADS + 2))) {
        RunSpec spec = Lowering.command("bench", List.of("true"), false, SdkConfig.DEFAULTS);
        Deadline quiet = new Deadline(System.nanoTime() + window.toNanos());
        Duration cap = probeCap(runs);
        probe(journal, spec, quiet, cap); // warm-up, unmeasured, as long as the measured window
        Stats without = probe(journal, spec, quiet.reset(), cap);
        long t0 = System.nanoTime();
        Stats during;
        Thread pruning = Thread.ofPlatform().name("bench-prune").start(() -> prune(journal));
        during = probe(journal, spec, pruning::isAlive, probeCap(runs));
        pruning.interrupt();
        pruning.join();
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Result(
            entries,
            runCount,
            without,
            during,
            seconds,
            entries - remainingEntries(url),
            runCount - remaining(url));
      }
    } finally {
      pg.drop("bench_prune");
    }
  }

  /** Ended runs of {@link #ENTRIES_PER_RUN} entries each, written in bulk with plain SQL. */
  private static void fill(String url, long entries) throws Exception {
    long runs = Math.max(1, entries / ENTRIES_PER_RUN);
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash,"
              + " created_by, created_at) SELECT 'old-' || g, 'old', 'running', 'old-' || g,"
              + " '{}', 'h', 'bench', now() - interval '41 days' FROM generate_series(1, "
              + runs
              + ") g");
      s.execute(
          "UPDATE flows.runs SET status = 'succeeded', completion_reason = 'success',"
              + " completed_at = now() - interval '40 days'");
      s.execute(
          "INSERT INTO flows.journal_entries (at, run_id, entry_type, payload) SELECT now() -"
              + " interval '40 days', 'old-' || (1 + g % "
              + runs
              + "), 'run.spawned', jsonb_build_object('n', g) FROM generate_series(1, "
              + entries
              + ") g");
      s.execute("VACUUM ANALYZE flows.runs");
      s.execute("VACUUM ANALYZE flows.journal_entries");
    }
  }

  /** What {@code flows runs prune} does: batches back to back until one finds nothing to prune. */
  private static void prune(PostgresJournal journal) {
    PruneRequest batch =
        new PruneRequest(Duration.ofDays(30), OptionalInt.of(BATCH), "bench", false);
    while (!Thread.currentThread().isInterrupted() && !journal.prune(batch).empty()) {
      // the next batch
    }
  }

  /** A window: a probe runs while it says so. */
  private static final class Deadline implements BooleanSupplier {
    private final long length;
    private long end;

    Deadline(long end) {
      this.end = end;
      this.length = end - System.nanoTime();
    }

    Deadline reset() {
      end = System.nanoTime() + length;
      return this;
    }

    @Override
    public boolean getAsBoolean() {
      return System.nanoTime() < end;
    }
  }

  /** {@link #PROBE_THREADS} threads admitting, claiming and completing runs; claims timed. */
  private static Stats probe(
      PostgresJournal journal, RunSpec spec, BooleanSupplier going, Duration probeCap)
      throws Exception {
    ConcurrentLinkedQueue<Long> claims = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < PROBE_THREADS; i++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    while (!stop.get()) {
                      journal.admit(
                          new StartRun(
                              Optional.empty(),
                              "probe:" + UUID.randomUUID(),
                              spec,
                              Optional.empty(),
                              "bench"),
                          Admit.queued());
                      long t = System.nanoTime();
                      List<ClaimedAttempt> got =
                          journal.claim(
                              new ClaimRequest(
                                  WORKER,
                                  Set.of(StepKind.DETERMINISTIC),
                                  1,
                                  Duration.ofSeconds(30)));
                      claims.add(System.nanoTime() - t);
                      for (ClaimedAttempt a : got) {
                        journal.complete(
                            a.lease(),
                            new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode()));
                      }
                    }
                  }));
    }
    long cap = System.nanoTime() + probeCap.toNanos();
    while (going.getAsBoolean() && System.nanoTime() < cap) {
      Thread.sleep(100);
    }
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    return Stats.of(claims);
  }

  /**
   * The longest a probe runs: 10 minutes, or with runs to prune long enough for them at 200 runs/s.
   */
  private static Duration probeCap(Optional<Long> runs) {
    Duration tenMinutes = Duration.ofMinutes(10);
    return runs.map(n -> Duration.ofSeconds(Math.max(tenMinutes.toSeconds(), n / 200)))
        .orElse(tenMinutes);
  }

  private static long remaining(String url) {
    return count(url, "SELECT count(*) FROM flows.runs WHERE run_id LIKE 'old-%'");
  }

  private static long remainingEntries(String url) {
    return count(url, "SELECT count(*) FROM flows.journal_entries WHERE run_id LIKE 'old-%'");
  }

  private static long count(String url, String sql) {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
