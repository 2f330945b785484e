package dev.flows.ops.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** What one run measured, and its Markdown: environment, tables, then each target as a ratio. */
final class Report {
  private static final long MIB = 1 << 20;
  private static final long RSS_TARGET = 256 * MIB;

  private final Map<String, String> env = new java.util.LinkedHashMap<>();
  private Map<String, String> pgSettings = Map.of();
  private final Map<Integer, Baseline.Result> inserts = new TreeMap<>();
  private final Map<Integer, Baseline.Result> claims = new TreeMap<>();
  private final Map<Integer, Double> steps = new TreeMap<>();
  private final Map<Integer, Double> noop = new TreeMap<>();
  private final Map<Integer, Baseline.Result> memoStatementFloor = new TreeMap<>();
  private final Map<Integer, Baseline.Result> memoVerbFloor = new TreeMap<>();
  private Baseline.Result callFloor;
  private final Map<String, Map<Integer, double[]>> mcp = new java.util.LinkedHashMap<>();
  private final Map<String, Stats[]> mcpLatency = new java.util.LinkedHashMap<>();
  private Stats dispatch = Stats.of(List.of());

  /** Per call kind: N, then {@link CommitsBench.Spent#marginal}'s six numbers. */
  private final Map<String, double[]> commits = new java.util.LinkedHashMap<>();

  /** One recovery measurement; only those on product defaults are judged against the target. */
  private record Recovery(Duration lease, Duration reconcile, boolean judged, Stats stats) {}

  private final List<Recovery> recovery = new ArrayList<>();
  private String waiting = "";
  private long waitingRss = -1;
  private double waitingCommitsPerRenewal = Double.NaN;
  private int waitingRuns;
  private final Map<Integer, Double> scaling = new TreeMap<>();
  private Duration runtime = Duration.ZERO;
  private Optional<PruneBench.Result> prune = Optional.empty();

  void prune(PruneBench.Result r) {
    prune = Optional.of(r);
  }

  void environment(String mode, Map<String, String> settings) throws Exception {
    env.put("date", Instant.now().toString());
    env.put("mode", mode);
    env.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
    env.put("memory", memTotal());
    env.put("java", System.getProperty("java.vm.name") + " " + Runtime.version());
    // The machine is shared: other processes' load skews CPU-bound engine numbers, not the disk's.
    String[] load =
        java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
    env.put("load average at start (1/5/15 min)", load[0] + " / " + load[1] + " / " + load[2]);
    pgSettings = settings;
  }

  private static String memTotal() throws Exception {
    for (String l : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/meminfo"))) {
      if (l.startsWith("MemTotal:")) {
        long kb = Long.parseLong(l.replaceAll("[^0-9]", ""));
        return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
      }
    }
    return "unknown";
  }

  void baseline(int c, Baseline.Result ins, Baseline.Result claim) {
    inserts.put(c, ins);
    claims.put(c, claim);
  }

  /** Steps each flow of the f.step section makes (four times as many at c=1). */
  private int stepsPerFlow;

  void stepsPerFlow(int n) {
    stepsPerFlow = n;
  }

  void steps(int c, double rate) {
    steps.put(c, rate);
  }

  void memoFloor(int c, Baseline.Result statement, Baseline.Result verb) {
    memoStatementFloor.put(c, statement);
    memoVerbFloor.put(c, verb);
  }

  void callFloor(Baseline.Result calls) {
    callFloor = calls;
  }

  private final Map<Integer, JournalFloor.NoopAttempts> noopAlone = new TreeMap<>();

  void noop(int c, double rate, JournalFloor.NoopAttempts alone) {
    noop.put(c, rate);
    noopAlone.put(c, alone);
  }

  void mcp(String server, int c, double durable, Stats durableLat, double bare, Stats bareLat) {
    mcp.computeIfAbsent(server, s -> new TreeMap<>()).put(c, new double[] {durable, bare, 0});
    if (c == 1) {
      mcpLatency.put(server, new Stats[] {durableLat, bareLat});
    }
  }

  void lostBareCalls(String server, int c, long lost) {
    mcp.get(server).get(c)[2] = lost;
  }

  void dispatch(Stats s) {
    dispatch = s;
  }

  void commits(String call, int n, double[] marginal) {
    double[] row = new double[marginal.length + 1];
    row[0] = n;
    System.arraycopy(marginal, 0, row, 1, marginal.length);
    commits.put(call, row);
  }

  void recovery(Duration lease, Duration reconcile, boolean judged, Stats s) {
    recovery.add(new Recovery(lease, reconcile, judged, s));
  }

  void waiting(
      int runs,
      long held,
      long heldAfter,
      long suspended,
      long suspendedAfter,
      double ramp,
      Pg.Counters spent,
      double window,
      long rss,
      long heap,
      long liveHeap,
      long leasesExpired) {
    waitingRuns = runs;
    waitingRss = rss;
    double renewalPeriod = WaitingBench.renewalPeriodSeconds();
    waitingCommitsPerRenewal = spent.writes() / window * renewalPeriod;
    waiting =
        row(
            String.valueOf(runs),
            held + " / " + heldAfter,
            suspended + " / " + suspendedAfter,
            f1(ramp),
            f1(rss / (double) MIB),
            heap < 0 ? "n/a" : f1(heap / (double) MIB),
            liveHeap < 0 ? "n/a" : f1(liveHeap / (double) MIB),
            f1(spent.commits() / window),
            f1(spent.writes() / window),
            f1(renewalPeriod),
            f1(waitingCommitsPerRenewal),
            String.valueOf(leasesExpired));
  }

  private String sleepers = "";

  void sleepers(
      int runs,
      long asleep,
      long rss,
      long threadsIdle,
      long threadsAsleep,
      int resumed,
      double lagP50Ms,
      double lagP99Ms) {
    sleepers =
        "\n### Sleeping runs (durable timers)\n\n"
            + runs
            + " runs each sleeping in `f.sleepUntil` to one due time, on one worker (its attempt"
            + " given back: no thread, lease or memory per sleeper). RSS and threads of the worker"
            + " while they sleep; lag from the due time (journaled in the body's memo) to the start"
            + " of the attempt that resumes each (journal time).\n\n"
            + "| runs | asleep at once | worker RSS (MiB) | threads idle | threads with all asleep"
            + " | resumed | due→resume p50 (ms) | p99 (ms) |\n|---|---|---|---|---|---|---|---|\n"
            + row(
                String.valueOf(runs),
                String.valueOf(asleep),
                f1(rss / (double) MIB),
                String.valueOf(threadsIdle),
                String.valueOf(threadsAsleep),
                String.valueOf(resumed),
                f1(lagP50Ms),
                f1(lagP99Ms));
  }

  private int scalingSteps;

  void scalingSteps(int n) {
    scalingSteps = n;
  }

  void scaling(int procs, double rate) {
    scaling.put(procs, rate);
  }

  void runtime(Duration d) {
    runtime = d;
  }

  private static String f0(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.0f", v);
  }

  private static String f1(double v) {
    return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.1f", v);
  }

  private static String f3(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "n/a" : String.format(Locale.ROOT, "%.3f", v);
  }

  private static String f2(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "n/a" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String row(String... cells) {
    return "| " + String.join(" | ", cells) + " |\n";
  }

  private static String header(String... cells) {
    StringBuilder sb = new StringBuilder(row(cells)).append('|');
    for (int i = 0; i < cells.length; i++) {
      sb.append("---|");
    }
    return sb.append('\n').toString();
  }

  /** One target row; a miss says by how much. */
  private record Target(String name, String measured, String bound, boolean pass, String miss) {}

  String markdown(Bench.Plan plan) {
    StringBuilder md = new StringBuilder();
    md.append("# flows benchmark results\n\n");
    md.append(
        "Written by `ops/bench/run"
            + (plan.mode().equals("full") ? "" : " --" + plan.mode())
            + "` (see SURFACE.md, Benchmarks). Every ratio is against the baseline measured in"
            + " this same run on the same Postgres; absolute numbers vary run to run with the"
            + " disk.\n\n");
    md.append("## Environment\n\n").append(header("what", "value"));
    env.forEach((k, v) -> md.append(row(k, v)));
    md.append(row("run time", runtime.toSeconds() + " s"));
    pgSettings.forEach((k, v) -> md.append(row("postgres " + k, v)));
    md.append(
        "\nEngines are assembled as a deployment would (`FlowsEngine`, product defaults: pool 10,"
            + " poll 1 s, reconcile 5 s, lease 30 s) except capacity (= concurrency; 2×+2 for"
            + " f.mcp, which holds a body and a child at once) and the lease where stated.\n\n");

    md.append("## Baseline: this Postgres's limits\n\n")
        .append(
            header(
                "concurrency",
                "INSERT+COMMIT /s",
                "commit p50 ms",
                "commit p99 ms",
                "SKIP LOCKED claim+commit /s"));
    for (int c : inserts.keySet()) {
      Baseline.Result i = inserts.get(c);
      md.append(
          row(
              String.valueOf(c),
              f0(i.perSecond()),
              f2(i.latency().p50()),
              f2(i.latency().p99()),
              f0(claims.get(c).perSecond())));
    }

    md.append("\n## Engine throughput\n\n");
    if (!steps.isEmpty()) {
      md.append(
          "f.step: c flows admitted at once, each making "
              + stepsPerFlow
              + " steps (one flow of "
              + 4 * stepsPerFlow
              + " at c=1), from admission to the last run's end (admission, claim and"
              + " completion of each run included); the median of "
              + Runs.STEP_ROUNDS
              + " rounds after a warm-up.\n\n");
    }
    md.append(
        header(
            "concurrency",
            "f.step steps/s (c flows at once; c=1 is one flow)",
            "× INSERT",
            "deterministic no-op child steps/s (claim → complete)",
            "× claim"));
    for (int c : steps.keySet()) {
      md.append(
          row(
              String.valueOf(c),
              f0(steps.get(c)),
              f2(steps.get(c) / inserts.get(c).perSecond()),
              f0(noop.getOrDefault(c, Double.NaN)),
              f2(noop.getOrDefault(c, Double.NaN) / claims.get(c).perSecond())));
    }

    if (!noopAlone.isEmpty()) {
      md.append(
              "\nDeterministic no-op steps: a backlog of one-step runs admitted first, then a `Worker`"
                  + " of capacity c started; steps/s until every run ended (worker start included),"
                  + " the median of "
                  + Runs.STEP_ROUNDS
                  + " rounds after a warm-up. The same backlog drained through the journal alone (c"
                  + " threads, each attempt claimed, renewed once and completed, as the worker does"
                  + " with a no-op executor):\n\n")
          .append(
              header(
                  "concurrency",
                  "journal alone steps/s",
                  "worker × journal alone",
                  "claim p50 ms",
                  "first renewal p50 ms",
                  "completion p50 ms"));
      noopAlone.forEach(
          (c, a) ->
              md.append(
                  row(
                      String.valueOf(c),
                      f0(a.perSecond()),
                      f2(noop.get(c) / a.perSecond()),
                      f2(a.claim().p50()),
                      f2(a.renew().p50()),
                      f2(a.complete().p50()))));
    }
    if (!memoVerbFloor.isEmpty()) {
      floorSection(md);
    }

    md.append("\n## Durable f.mcp vs the bare MCP client (no-op tool)\n\n")
        .append(
            header(
                "transport",
                "concurrency",
                "durable calls/s",
                "bare calls/s",
                "ratio",
                "bare calls failed or unanswered in 5 s"));
    mcp.forEach(
        (server, byC) ->
            byC.forEach(
                (c, v) ->
                    md.append(
                        row(
                            server,
                            String.valueOf(c),
                            f0(v[0]),
                            f0(v[1]),
                            f2(v[0] / v[1]),
                            f0(v[2])))));

    md.append("\n## Latency (ms)\n\n").append(header("what", "p50", "p99"));
    md.append(
        row(
            "run start (admit) → first dispatch of the body",
            f2(dispatch.p50()),
            f2(dispatch.p99())));
    mcpLatency.forEach(
        (server, s) -> {
          md.append(row("durable f.mcp over " + server + " (c=1)", f2(s[0].p50()), f2(s[0].p99())));
          md.append(row("bare call over " + server + " (c=1)", f2(s[1].p50()), f2(s[1].p99())));
          md.append(
              row(
                  "added by durability over " + server,
                  f2(s[0].p50() - s[1].p50()),
                  f2(s[0].p99() - s[1].p99())));
        });

    md.append("\n## Commits on the success path\n\n")
        .append(
            "Marginal cost: (a run with N calls − the same run with 0 calls) / N, each on a fresh"
                + " database (autovacuum off on the flows tables and the catalogs vacuumed"
                + " beforehand: autovacuum's transactions would count) and a fresh engine whose"
                + " pool has opened all its connections before counting starts and is closed"
                + " before reading. The engine's timer-driven claim polls and reconciles wait a"
                + " minute here (it is woken by its notifications as always): they are on no"
                + " call's path, and their number depends on how long a run lasts. `xact_commit`"
                + " counts every transaction, reads included; `writes` counts transaction ids"
                + " handed out (transactions that flush WAL at commit). The net column leaves out"
                + " the pool's liveness checks: HikariCP checks a connection that sat idle over"
                + " 500 ms before lending it, the driver makes that an empty query, and Postgres"
                + " counts it as a transaction; how many there are depends on timing, not on the"
                + " calls, and the bench counts them on the pool's connections.\n\n")
        .append(
            header(
                "call",
                "N",
                "xact_commit per call (raw)",
                "writes per call",
                "xact_commit per call, less the pool's liveness checks",
                "pool liveness checks (N run / 0 run)",
                "engine transactions in all (N run − 0 run)"));
    commits.forEach(
        (call, v) ->
            md.append(
                row(
                    call,
                    f0(v[0]),
                    f3(v[1]),
                    f3(v[2]),
                    f3(v[3]),
                    f0(v[4]) + " / " + f0(v[5]),
                    f0(v[6]))));

    md.append("\n## Recovery: SIGKILL of a worker → the next attempt starts\n\n")
        .append(header("lease", "survivor's reconcile interval", "samples", "p50 s", "max s"));
    for (Recovery r : recovery) {
      md.append(
          row(
              r.lease().toSeconds() + " s",
              r.reconcile().toSeconds()
                  + " s"
                  + (r.judged() ? " (default)" : " (shorter, not a default)"),
              String.valueOf(r.stats().sortedNanos().size()),
              f2(r.stats().p50() / 1000),
              f2(r.stats().ms(1.0) / 1000)));
    }

    md.append(sleepers);
    if (waitingRuns > 0) {
      waitingSection(md);
    }
    if (!scaling.isEmpty()) {
      scalingSection(md);
    }
    prune.ifPresent(r -> pruneSection(md, r));
    targetsSection(md);
    return md.toString();
  }

  private void floorSection(StringBuilder md) {
    md.append("\n## The journal alone: the engine's writes without the engine\n\n")
        .append(
            "What the f.step and f.mcp targets would measure if everything around the journal"
                + " cost nothing: no flow, body, worker or MCP server. The memo statement is"
                + " `memo_fast_path.sql`, the statement the engine writes f.step memos with, sent"
                + " by plain JDBC with one memo each (each thread its own autocommit connection"
                + " and its own claimed run); `recordConfirmedEffect` is the journal verb a body's"
                + " f.step calls, from c threads (each its own claimed run, group commit on); a"
                + " durable call's two statements are `startClaimed` then `confirmAndComplete` of"
                + " a one-step MCP child, back to back, as an inline f.mcp makes them around the"
                + " server's answer. When one of these misses a bound, no engine on this journal"
                + " format meets it on this machine.\n\n")
        .append(
            header(
                "concurrency",
                "memo statement /s",
                "× INSERT",
                "recordConfirmedEffect /s",
                "× INSERT",
                "recordConfirmedEffect p50 ms",
                "f.step (engine) × INSERT"));
    for (int c : memoVerbFloor.keySet()) {
      double insert = inserts.get(c).perSecond();
      Baseline.Result st = memoStatementFloor.get(c);
      Baseline.Result verb = memoVerbFloor.get(c);
      md.append(
          row(
              String.valueOf(c),
              f0(st.perSecond()),
              f2(st.perSecond() / insert),
              f0(verb.perSecond()),
              f2(verb.perSecond() / insert),
              f2(verb.latency().p50()),
              f2(steps.getOrDefault(c, Double.NaN) / insert)));
    }
    if (callFloor != null && inserts.containsKey(1)) {
      double commit = inserts.get(1).latency().p50();
      md.append(
          "\nA durable call's two statements, c=1: p50 "
              + f2(callFloor.latency().p50())
              + " ms, p99 "
              + f2(callFloor.latency().p99())
              + " ms; p50 = "
              + f2(callFloor.latency().p50() / commit)
              + "× one commit ("
              + f2(commit)
              + " ms), against a bound of 3× for all a durable call adds.\n");
    }
  }

  private void waitingSection(StringBuilder md) {
    md.append("\n## A worker holding runs whose bodies wait on slow MCP calls\n\n")
        .append(
            header(
                "runs",
                "calls + bodies held (start / end of window)",
                "bodies suspended (start / end)",
                "ramp s",
                "RSS MiB",
                "heap used MiB",
                "heap after full GC MiB",
                "xact_commit/s",
                "writes/s",
                "renewal period s",
                "writes per renewal period",
                "attempts whose lease expired (ramp and window)"))
        .append(waiting);
    if (waitingRuns < 10_000) {
      md.append(
          "\nScaled down from 10,000 runs to "
              + waitingRuns
              + " (quick mode); the per-run cost scales linearly.");
    }
    md.append(
        "\nThe worker JVM runs with the options `flows worker` starts with (`ops/worker.jvmopts`:"
            + " G1, max heap 512 MiB, heap kept within ~25 % of the live set after a collection, a"
            + " collection every 5 s when idle), unless FLOWS_BENCH_WORKER_JVM says otherwise; with"
            + " the JVM's defaults (a quarter of RAM) G1 keeps the heap it grew during the ramp and"
            + " RSS shows that, not the live set. The heap after a full GC is the live set. Writes"
            + " are counted with autovacuum off on the flows tables (after a VACUUM ANALYZE): the"
            + " renewals dirty enough rows for an auto-analyze per period or so, which is"
            + " Postgres's housekeeping, not the worker's. A body that has waited"
            + " SdkConfig.suspendAfter (10 s) gives its attempt back (it is replayed when its call"
            + " ends), and at most SdkConfig.maxResidentWaits (1,000) bodies wait in memory at once;"
            + " the window starts once every body has. What a waiting run then holds in the"
            + " worker: its call's lease in the one lease keeper, the call's attempt and spec, and"
            + " its pending request in the MCP client; no thread.\n");
  }

  private void scalingSection(StringBuilder md) {
    md.append("\n## Scaling over worker processes (f.step flows)\n\n")
        .append(
            "Each worker a JVM of its own with "
                + ScalingBench.SCALING_CAPACITY
                + " slots, and "
                + ScalingBench.SCALING_CAPACITY
                + " flows per worker admitted at once, each making "
                + scalingSteps
                + " steps; the median of "
                + Runs.STEP_ROUNDS
                + " rounds after the workload ran unmeasured in the same workers (JIT warm-up, as"
                + " long per worker as one engine's elsewhere)."
                + " The workers and Postgres share this machine's cores: more processes add no"
                + " CPU here, so this shows what coordinating through the journal costs, not"
                + " what more machines would add.\n\n")
        .append(header("worker processes", "f.step steps/s", "× 1 process"));
    double one = scaling.getOrDefault(1, Double.NaN);
    scaling.forEach((p, r) -> md.append(row(String.valueOf(p), f0(r), f2(r / one))));
  }

  private void pruneSection(StringBuilder md, PruneBench.Result r) {
    md.append("\n## Retention under load\n\n")
        .append(
            "A database holding "
                + f0(r.entries())
                + " journal entries of runs that ended 40 days ago; "
                + PruneBench.PROBE_THREADS
                + " threads each admit a one-step run, claim (timed) and complete it, first"
                + " without pruning, then while a worker's `Pruner` (product defaults: 30 days,"
                + " 100 roots per transaction, 50 ms between batches) removes every old run.\n\n")
        .append(header("phase", "claims", "claim p50 ms", "claim p99 ms"))
        .append(
            row(
                "without pruning",
                f0(r.without().sortedNanos().size()),
                f2(r.without().p50()),
                f2(r.without().p99())))
        .append(
            row(
                "while pruning",
                f0(r.during().sortedNanos().size()),
                f2(r.during().p50()),
                f2(r.during().p99())))
        .append("\nPruned ")
        .append(f0(r.prunedEntries()))
        .append(" entries in ")
        .append(f1(r.pruneSeconds()))
        .append(" s (")
        .append(f0(r.prunedEntries() / r.pruneSeconds()))
        .append(" entries/s).\n");
  }

  private void targetsSection(StringBuilder md) {
    md.append("\n## Targets\n\n")
        .append(header("target", "measured", "bound", "verdict", "miss by"));
    for (Target t : targets()) {
      md.append(
          row(
              t.name(),
              t.measured(),
              t.bound(),
              t.pass() ? "PASS" : "MISS",
              t.pass() ? "" : t.miss()));
    }
    md.append("\nChaos (≥ 200 faults, 0 violations) is measured by `ops/chaos`, not here.\n");
    md.append("\n").append(Notes.MISSES);
  }

  private List<Target> targets() {
    List<Target> out = new ArrayList<>();
    for (int c : steps.keySet()) {
      double ratio = steps.get(c) / inserts.get(c).perSecond();
      double bound = c >= 16 ? 1.0 : 0.5;
      Baseline.Result floor = memoStatementFloor.get(c);
      String floorNote =
          floor == null
              ? ""
              : " (the memo statement alone: "
                  + f2(floor.perSecond() / inserts.get(c).perSecond())
                  + "×)";
      out.add(
          new Target(
              "f.step throughput at c=" + c,
              f2(ratio) + "× INSERT+COMMIT" + floorNote,
              "≥ " + f2(bound) + "×",
              ratio >= bound,
              f2(bound / ratio) + "× short"));
    }
    double[] step = commits.get("f.step");
    if (step != null) {
      // A commit the engine owes each step shows as N more transactions; one more in the whole
      // run is the run's, not a step's (a run that outlasts the reconciler's settle period wakes
      // it once more than a run of no steps).
      out.add(
          new Target(
              "commits per f.step (net)",
              f3(step[3]) + " (writes " + f3(step[2]) + "; raw " + f3(step[1]) + ")",
              "≤ 1 (at most one more in the whole run of " + f0(step[0]) + ")",
              step[6] - step[0] <= 1,
              f0(step[6] - step[0]) + " transactions more than calls"));
    }
    double[] call = commits.get("durable f.mcp (stdio)");
    if (call != null) {
      out.add(
          new Target(
              "commits per durable f.mcp (net)",
              f2(call[3]) + " (writes " + f2(call[2]) + "; raw " + f2(call[1]) + ")",
              "≤ 3",
              call[3] <= 3.0,
              f2(call[3] - 3) + " too many"));
    }
    Baseline.Result one = inserts.get(1);
    if (one != null) {
      double commit = one.latency().p50();
      mcpLatency.forEach(
          (server, s) -> {
            double added = s[0].p50() - s[1].p50();
            out.add(
                new Target(
                    "added latency of durable f.mcp (" + server + ", p50)",
                    f2(added)
                        + " ms = "
                        + f2(added / commit)
                        + "× commit ("
                        + f2(commit)
                        + " ms)"
                        + (callFloor == null
                            ? ""
                            : " (its two statements alone: "
                                + f2(callFloor.latency().p50() / commit)
                                + "×)"),
                    "≤ 3× commit",
                    added <= 3 * commit,
                    f2(added / (3 * commit)) + "× over"));
          });
    }
    for (Recovery r : recovery.stream().filter(Recovery::judged).toList()) {
      double worst = r.stats().ms(1.0) / 1000;
      double bound = r.lease().toSeconds() + 1.0;
      out.add(
          new Target(
              "recovery, lease " + r.lease().toSeconds() + " s (worst sample)",
              f2(worst) + " s",
              "≤ " + f1(bound) + " s",
              worst <= bound,
              f2(worst - bound) + " s over"));
    }
    if (waitingRss >= 0) {
      out.add(
          new Target(
              "RSS of a worker with " + waitingRuns + " waiting runs (target: 10,000)",
              f1(waitingRss / (double) MIB) + " MiB",
              "≤ 256 MiB",
              waitingRss <= RSS_TARGET,
              f1((waitingRss - RSS_TARGET) / (double) MIB) + " MiB over"));
      out.add(
          new Target(
              "renewal cost with " + waitingRuns + " waiting runs",
              f1(waitingCommitsPerRenewal) + " write commits per renewal period",
              "≤ 1",
              waitingCommitsPerRenewal <= 1.0,
              f1(waitingCommitsPerRenewal) + "× over"));
    }
    prune.ifPresent(
        r ->
            out.add(
                new Target(
                    "claim latency p99 while pruning " + f0(r.entries()) + " entries",
                    f2(r.p99Ratio()) + "× without pruning",
                    "≤ 2×",
                    r.p99Ratio() <= 2.0,
                    f2(r.p99Ratio() / 2.0) + "× over")));
    return out;
  }
}
