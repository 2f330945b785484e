package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
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
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Retention under load: claim latency of a steady workload on a database holding {@code entries}
 * journal entries of runs that ended 40 days ago, in alternating windows without and with {@code
 * flows runs prune} (30 days, batches of {@link #BATCH} roots back to back, as the command runs
 * them) running, until it removed them all. Alternating in the same run, rather than one window
 * without and then the prune, keeps a change of the machine's load from reading as the prune's
 * cost.
 */
final class PruneBench {
  static final int PROBE_THREADS = 4;
  private static final WorkerId WORKER = new WorkerId("bench-prune-probe");
  private static final int ENTRIES_PER_RUN = 100;

  /** Root runs per transaction: {@code flows runs prune}'s default {@code --batch}. */
  static final int BATCH = 100;

  /**
   * The pause between batches: {@code FLOWS_BENCH_PRUNE_PAUSE_MS}, else {@code flows runs prune}'s
   * default {@code --pause}.
   */
  static Duration pause() {
    String ms = System.getenv("FLOWS_BENCH_PRUNE_PAUSE_MS");
    return ms == null || ms.isBlank()
        ? dev.flows.worker.Pruner.Config.DEFAULT_PAUSE
        : Duration.ofMillis(Long.parseLong(ms.strip()));
  }

  /** One window's claims, with the prune paused ({@code pruning} false) or running. */
  record Window(boolean pruning, Stats claims) {}

  /**
   * What the section measured: the claims of every window in order (the first without pruning), the
   * time the prune's batches took in all, and what they removed.
   */
  record Result(
      long entries,
      long runs,
      Duration pause,
      List<Window> windows,
      double pruneSeconds,
      long prunedEntries,
      long prunedRuns) {
    /** Every claim of the windows without pruning. */
    Stats without() {
      return pooled(false);
    }

    /** Every claim of the windows while pruning. */
    Stats during() {
      return pooled(true);
    }

    double p99Ratio() {
      return during().p99() / without().p99();
    }

    /** The windows of one phase, in order. */
    List<Stats> phase(boolean pruning) {
      return windows.stream().filter(w -> w.pruning() == pruning).map(Window::claims).toList();
    }

    /**
     * The p99 ratio of each window while pruning to the window without just before it, sorted: the
     * spread of the pooled ratio across pairs measured seconds apart.
     */
    List<Double> pairedP99Ratios() {
      List<Double> ratios = new ArrayList<>();
      for (int i = 1; i < windows.size(); i++) {
        Window before = windows.get(i - 1);
        Window w = windows.get(i);
        if (w.pruning() && !before.pruning() && !w.claims().empty() && !before.claims().empty()) {
          ratios.add(w.claims().p99() / before.claims().p99());
        }
      }
      java.util.Collections.sort(ratios);
      return ratios;
    }

    private Stats pooled(boolean pruning) {
      return Stats.of(phase(pruning).stream().flatMap(s -> s.sortedNanos().stream()).toList());
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
          "retention: claims in windows without and while pruning "
              + runs.map(n -> n + " runs").orElse(plan.pruneEntries() + " entries"));
      Result r =
          measure(pg, plan.pruneEntries(), runs, Duration.ofSeconds(plan.pruneWindowSeconds()));
      report.prune(r);
      log(
          "  claim p99 "
              + r.without().p99()
              + " ms without, "
              + r.during().p99()
              + " ms during ("
              + r.windows().size()
              + " windows)");
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
        Duration pause = pause();
        PausablePrune prune = new PausablePrune(journal, BATCH, pause);
        try (Probe probe = new Probe(journal, spec)) {
          Thread.sleep(window.toMillis()); // warm-up, unmeasured, as long as a measured window
          List<Window> windows = alternate(prune, probe, window, probeCap(runs));
          return new Result(
              entries,
              runCount,
              pause,
              windows,
              prune.pruneNanos() / 1e9,
              entries - remainingEntries(url),
              runCount - remaining(url));
        }
      }
    } finally {
      pg.drop("bench_prune");
    }
  }

  /**
   * Windows of {@code length}, without pruning first, until the prune found nothing left (its last
   * window ends there) or {@code cap} passed. A window without pruning starts once the batch under
   * way ended, so none of its claims overlaps a batch.
   */
  private static List<Window> alternate(
      PausablePrune prune, Probe probe, Duration length, Duration cap) throws InterruptedException {
    Thread pruner = prune.start();
    List<Window> windows = new ArrayList<>();
    long capAt = System.nanoTime() + cap.toNanos();
    try {
      for (boolean on = false; !prune.done() && System.nanoTime() < capAt; on = !on) {
        prune.set(on);
        probe.openWindow();
        long end = System.nanoTime() + length.toNanos();
        while (System.nanoTime() < end && !prune.done()) {
          Thread.sleep(20);
        }
        windows.add(new Window(on, probe.closeWindow()));
      }
    } finally {
      prune.stop();
      pruner.join();
    }
    return windows;
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

  /**
   * {@link #PROBE_THREADS} threads admitting, claiming and completing runs; each claim timed and
   * counted in the window open when it was sent, if that window is still open when it answers.
   */
  private static final class Probe implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private volatile ConcurrentLinkedQueue<Long> window = new ConcurrentLinkedQueue<>();

    Probe(PostgresJournal journal, RunSpec spec) {
      for (int i = 0; i < PROBE_THREADS; i++) {
        threads.add(Thread.ofPlatform().start(() -> claimUntilStopped(journal, spec)));
      }
    }

    /** Starts a window: claims sent from now on count in it. */
    void openWindow() {
      window = new ConcurrentLinkedQueue<>();
    }

    /** Ends the window: answers its claims; a claim under way counts in none. */
    Stats closeWindow() {
      ConcurrentLinkedQueue<Long> w = window;
      window = new ConcurrentLinkedQueue<>();
      return Stats.of(List.copyOf(w));
    }

    private void claimUntilStopped(PostgresJournal journal, RunSpec spec) {
      while (!stop.get()) {
        journal.admit(
            new StartRun(
                Optional.empty(), "probe:" + UUID.randomUUID(), spec, Optional.empty(), "bench"),
            Admit.queued());
        ConcurrentLinkedQueue<Long> sentIn = window;
        long t = System.nanoTime();
        List<ClaimedAttempt> got =
            journal.claim(
                new ClaimRequest(
                    WORKER, Set.of(StepKind.DETERMINISTIC), 1, Duration.ofSeconds(30)));
        long took = System.nanoTime() - t;
        if (window == sentIn) {
          sentIn.add(took);
        }
        for (ClaimedAttempt a : got) {
          journal.complete(
              a.lease(), new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode()));
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
    }
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
