package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.MIB;
import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.f3;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Targets: each measured against its bound, a miss by how much, then why targets miss. */
final class TargetsMarkdown {
  private static final long RSS_TARGET = 256 * MIB;

  private TargetsMarkdown() {}

  /**
   * One target row; a miss says by how much. {@code pass} is empty where the target is a figure to
   * report with no bound set (shown as "measured").
   */
  record Target(String name, String measured, String bound, Optional<Boolean> pass, String miss) {
    Target(String name, String measured, String bound, boolean pass, String miss) {
      this(name, measured, bound, Optional.of(pass), miss);
    }

    String verdict() {
      return pass.map(p -> p ? "PASS" : "MISS").orElse("measured");
    }

    /** The row's cells: name, measured, bound, verdict and, for a miss only, by how much. */
    List<String> cells() {
      return List.of(name, measured, bound, verdict(), pass.orElse(true) ? "" : miss);
    }
  }

  static void render(Report results, StringBuilder md) {
    md.append("\n## Targets\n\n")
        .append(header("target", "measured", "bound", "verdict", "miss by"));
    for (Target t : targets(results)) {
      md.append(row(t.cells().toArray(String[]::new)));
    }
    md.append("\nChaos (≥ 200 faults, 0 violations) is measured by `ops/chaos`, not here.\n");
    md.append("\n").append(Notes.MISSES);
    ScaleTargets.render(results, md);
  }

  private static List<Target> targets(Report results) {
    List<Target> out = new ArrayList<>();
    throughput(results, out);
    commits(results, out);
    addedLatency(results, out);
    recovery(results, out);
    waiting(results, out);
    results.tasks.ifPresent(t -> out.addAll(taskTargets(t)));
    prune(results, out);
    cli(results, out);
    return out;
  }

  /**
   * A short command's median wall time over a bare JVM start's in the same run: 1 s on this machine
   * idle, where a bare {@code java -version} takes about 90 ms. A ratio, because the machine is
   * shared and load stretches both alike.
   */
  static final double CLI_TARGET_RATIO = 11;

  /** Each measured {@code flows} command (not the bare JVM of the first row) within its bound. */
  private static void cli(Report results, List<Target> out) {
    if (results.cli.isEmpty()) {
      return;
    }
    double bare = results.cli.getFirst().wall().p50();
    for (CliBench.Timed t : results.cli.subList(1, results.cli.size())) {
      double ratio = t.wall().p50() / bare;
      out.add(
          new Target(
              "`flows " + t.command() + "` wall time (median)",
              f0(t.wall().p50()) + " ms = " + f2(ratio) + "× a bare JVM start",
              "≤ " + f0(CLI_TARGET_RATIO) + "× (1 s idle)",
              ratio <= CLI_TARGET_RATIO,
              f2(ratio / CLI_TARGET_RATIO) + "× over"));
    }
  }

  /** f.step throughput per concurrency, against INSERT+COMMIT. */
  private static void throughput(Report results, List<Target> out) {
    for (int c : results.steps.keySet()) {
      double ratio = results.steps.get(c) / results.inserts.get(c).perSecond();
      double bound = c >= 16 ? 1.0 : 0.5;
      Baseline.Result floor = results.memoStatementFloor.get(c);
      String floorNote =
          floor == null
              ? ""
              : " (the memo statement alone: "
                  + f2(floor.perSecond() / results.inserts.get(c).perSecond())
                  + "×)";
      out.add(
          new Target(
              "f.step throughput at c=" + c,
              f2(ratio) + "× INSERT+COMMIT" + floorNote,
              "≥ " + f2(bound) + "×",
              ratio >= bound,
              f2(bound / ratio) + "× short"));
    }
  }

  /** Commits per f.step and per durable f.mcp. */
  private static void commits(Report results, List<Target> out) {
    double[] step = results.commits.get("f.step");
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
    double[] call = results.commits.get("durable f.mcp (stdio)");
    if (call != null) {
      out.add(
          new Target(
              "commits per durable f.mcp (net)",
              f2(call[3]) + " (writes " + f2(call[2]) + "; raw " + f2(call[1]) + ")",
              "≤ 3",
              call[3] <= 3.0,
              f2(call[3] - 3) + " too many"));
    }
  }

  /** What a durable f.mcp adds to a call, in commits. */
  private static void addedLatency(Report results, List<Target> out) {
    Baseline.Result one = results.inserts.get(1);
    if (one != null) {
      double commit = one.latency().p50();
      results.mcpLatency.forEach(
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
                        + (results.callFloor == null
                            ? ""
                            : " (its two statements alone: "
                                + f2(results.callFloor.latency().p50() / commit)
                                + "×)"),
                    "≤ 3× commit",
                    added <= 3 * commit,
                    f2(added / (3 * commit)) + "× over"));
          });
    }
  }

  /** Recovery of a dead worker's runs, per lease. */
  private static void recovery(Report results, List<Target> out) {
    for (Report.Recovery r : results.recovery.stream().filter(Report.Recovery::judged).toList()) {
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
  }

  /** Memory and renewal cost of a worker with many waiting runs. */
  private static void waiting(Report results, List<Target> out) {
    results.waiting.ifPresent(
        w -> {
          out.add(
              new Target(
                  "RSS of a worker with " + w.runs() + " waiting runs (target: 10,000)",
                  f1(w.rss() / (double) MIB) + " MiB",
                  "≤ 256 MiB",
                  w.rss() <= RSS_TARGET,
                  f1((w.rss() - RSS_TARGET) / (double) MIB) + " MiB over"));
          out.add(
              new Target(
                  "renewal cost with " + w.runs() + " waiting runs",
                  f1(w.commitsPerRenewal()) + " write commits per renewal period",
                  "≤ 1",
                  w.commitsPerRenewal() <= 1.0,
                  f1(w.commitsPerRenewal()) + "× over"));
        });
  }

  /** How much pruning may raise the claim p99 (over the same workload without pruning). */
  static final double PRUNE_P99_BOUND = 1.2;

  /** Claim latency while pruning. */
  private static void prune(Report results, List<Target> out) {
    results.prune.ifPresent(
        r ->
            out.add(
                new Target(
                    "claim latency p99 while pruning "
                        + f0(r.runs())
                        + " runs ("
                        + f0(r.entries())
                        + " entries)",
                    f2(r.p99Ratio()) + "× without pruning",
                    "≤ " + PRUNE_P99_BOUND + "×",
                    r.p99Ratio() <= PRUNE_P99_BOUND,
                    f2(r.p99Ratio() / PRUNE_P99_BOUND) + "× over")));
  }

  /**
   * Task-backed calls: every task in flight at once, run to success, with threads bounded by the
   * slots rather than the tasks, and the server polled no sooner and no more often than it hinted.
   */
  static List<Target> taskTargets(Report.Tasks t) {
    TaskPolls p = t.polls();
    long floor = (long) Math.floor(t.hintMs() * (1 - TaskPolls.TOLERANCE));
    double hinted = p.hintedRate(t.hintMs());
    return List.of(
        new Target(
            t.runs() + " tasks in flight at once on one worker of " + t.capacity() + " slots",
            t.working() + " working at once; " + t.succeeded() + " runs succeeded",
            "all " + t.runs() + ", then all succeeded",
            t.working() == t.runs() && t.succeeded() == t.runs(),
            Math.min(t.working(), t.succeeded()) + " of " + t.runs()),
        new Target(
            "no thread per task (" + t.working() + " tasks working)",
            t.addedThreads()
                + " threads more than idle (platform + virtual), "
                + f2(t.addedThreads() / (double) Math.max(1, t.working()))
                + " per task; "
                + t.plateau().running()
                + " attempts running",
            "≤ " + t.threadBound() + " (a quarter of the tasks)",
            t.working() > 0 && t.addedThreads() <= t.threadBound(),
            (t.addedThreads() - t.threadBound()) + " threads over"),
        new Target(
            "no task polled sooner than its hint (" + t.hintMs() + " ms)",
            f0(p.minGapMs()) + " ms shortest gap; " + p.belowHint() + " of " + p.gaps() + " short",
            "every gap ≥ " + floor + " ms (hint − 5 %)",
            p.gaps() > 0 && p.belowHint() == 0,
            p.belowHint() + " gaps short"),
        new Target(
            "poll rate with every task working",
            f1(p.plateauRate()) + " tasks/get per s",
            "≤ " + f1(hinted) + " (tasks / hint)",
            p.plateauSeconds() > 0 && p.plateauRate() <= hinted,
            p.plateauSeconds() > 0 ? f2(p.plateauRate() / hinted) + "× over" : "no plateau"));
  }
}
