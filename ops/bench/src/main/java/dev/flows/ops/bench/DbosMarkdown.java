package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

import java.util.Optional;

/** The short-runs workloads on DBOS Transact, as ratios against this engine's in the same run. */
final class DbosMarkdown {
  private DbosMarkdown() {}

  static void render(Report results, StringBuilder md) {
    if (results.dbos.isEmpty() && results.dbosSkipped.isEmpty()) {
      return;
    }
    md.append("\n## Short runs on DBOS Transact\n\n");
    if (results.dbosSkipped.isPresent()) {
      md.append("skipped: ").append(results.dbosSkipped.get()).append('\n');
      return;
    }
    md.append(
            "The same f.step workloads on DBOS Transact Java (a workflow of K `runStep`s), on the"
                + " same Postgres in a database of its own: C client threads each start a"
                + " workflow (`DBOS.startWorkflow`) and wait for its result (`getResult`), DBOS on"
                + " its defaults (one `DBOS` per load, as above). Ratios are this engine's figure"
                + " over DBOS's, both measured in this run (n/a without the `shortruns`"
                + " section)."
                + inRounds(results)
                + "\n\n")
        .append(table(results, results.dbos));
    rounds(results, md);
    if (!results.dbosQueued.isEmpty()) {
      md.append(
              "\nDBOS's queue mode: the same loads, each workflow enqueued"
                  + " (`startWorkflow` with `StartWorkflowOptions.withQueue`) on a DBOS queue of"
                  + " worker concurrency C polled every "
                  + DbosBench.QUEUE_POLL.toMillis()
                  + " ms (DBOS's default is "
                  + dev.dbos.transact.workflow.Queue.DEFAULT_POLLING_INTERVAL.toMillis()
                  + " ms); its polls are among the commits counted. `getResult` of an enqueued"
                  + " workflow reads its status from the database once a second (a fixed interval"
                  + " of DBOS's system database), so a queued run's start → result is at least"
                  + " the wait for that read.\n\n")
          .append(table(results, results.dbosQueued));
    }
  }

  private static String table(Report results, java.util.List<ShortRunsBench.Cell> cells) {
    StringBuilder md =
        new StringBuilder(
            header(
                "runs of",
                "C",
                "DBOS runs/s",
                "this engine runs/s",
                "ratio",
                "DBOS commits per run",
                "this engine commits per run",
                "DBOS start → result p50 ms",
                "this engine p50 ms"));
    for (ShortRunsBench.Cell d : cells) {
      Optional<ShortRunsBench.Cell> ours = ShortRunsBench.find(results.shortRuns, d.calls(), d.c());
      md.append(
          row(
              d.shape(),
              String.valueOf(d.c()),
              f1(d.runsPerSecond()),
              f1(ours.map(ShortRunsBench.Cell::runsPerSecond).orElse(Double.NaN)),
              f2(ratio(results, d, ours)),
              f1(d.commitsPerRun()),
              f1(ours.map(ShortRunsBench.Cell::commitsPerRun).orElse(Double.NaN)),
              f2(d.total().p50()),
              f2(ours.map(o -> o.total().p50()).orElse(Double.NaN))));
    }
    return md.toString();
  }

  /**
   * This engine's rate over DBOS's: the median of the rounds' ratios where the load ran in rounds
   * on both, else the two cells' rates.
   */
  static double ratio(Report results, ShortRunsBench.Cell d, Optional<ShortRunsBench.Cell> ours) {
    java.util.List<Double> rounds =
        results.shortRunsRounds.stream()
            .filter(r -> r.calls() == d.calls() && r.c() == d.c())
            .map(Report.ShortRunsRound::ratio)
            .filter(x -> !x.isNaN())
            .toList();
    if (rounds.isEmpty() || d.roundRates().isEmpty()) {
      return ours.map(o -> o.runsPerSecond() / d.runsPerSecond()).orElse(Double.NaN);
    }
    return ShortRunsBench.median(rounds);
  }

  /** How the loads ran in rounds, when they did. */
  private static String inRounds(Report results) {
    int rounds =
        results.shortRunsRounds.stream().mapToInt(Report.ShortRunsRound::round).max().orElse(0);
    if (rounds == 0) {
      return "";
    }
    return " Each f.step load ran in "
        + (rounds == 1 ? "1 round" : rounds + " rounds")
        + " ("
        + ShortRunsRounds.ROUNDS_ENV
        + " sets how many), this engine's and DBOS's loads in turn, the one that goes first"
        + " alternating from load to load and round to round: runs/s is each side's median over"
        + " the rounds, the ratio the median of the rounds' ratios, latencies and commits over"
        + " every round's runs.";
  }

  /** Each round of each load: the spread of its ratios is this run's noise. */
  private static void rounds(Report results, StringBuilder md) {
    if (results.shortRunsRounds.isEmpty()) {
      return;
    }
    md.append(
            "\nEach round (direct mode): which side ran first, each side's runs/s and their ratio;"
                + " the one-minute load average and the p50 of a bare INSERT+COMMIT at one client"
                + " (0.5 s, a database of its own) just before the pair, the disk's state at that"
                + " moment; the JIT's and the garbage collectors' time and the classes loaded"
                + " during each side's load, its engine's start and close included (this JVM's"
                + " counters: both run in it).\n\n")
        .append(
            header(
                "runs of",
                "C",
                "round",
                "first",
                "this engine runs/s",
                "DBOS runs/s",
                "ratio",
                "load average",
                "bare commit p50 ms",
                "JIT ms (this / DBOS)",
                "GC ms (this / DBOS)",
                "classes loaded (this / DBOS)"));
    for (Report.ShortRunsRound r : results.shortRunsRounds) {
      md.append(
          row(
              r.shape(),
              String.valueOf(r.c()),
              String.valueOf(r.round()),
              r.engineFirst() ? "this engine" : "DBOS",
              f1(r.engineRate()),
              f1(r.dbosRate()),
              f2(r.ratio()),
              f2(r.loadAverage()),
              f2(r.commitP50Ms()),
              f0(r.engineWork().jitMs()) + " / " + f0(r.dbosWork().jitMs()),
              f0(r.engineWork().gcMs()) + " / " + f0(r.dbosWork().gcMs()),
              f0(r.engineWork().classesLoaded()) + " / " + f0(r.dbosWork().classesLoaded())));
    }
  }
}
