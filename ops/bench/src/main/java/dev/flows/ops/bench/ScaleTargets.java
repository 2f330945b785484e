package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.MIB;
import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

import dev.flows.ops.bench.TargetsMarkdown.Target;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The targets at the limit and at scale, each as a ratio of two figures of this run, with the load
 * average the machine had while its section ran: short runs against DBOS, the durable f.mcp call
 * against the bare call interleaved with it, every journal figure filled against empty, and the
 * timers' wake-up (a figure the targets ask for without a bound).
 */
final class ScaleTargets {
  /** A 1-step run's throughput over DBOS Transact's direct mode, at every concurrency. */
  static final double ONE_STEP_OVER_DBOS = 1.5;

  /** A 10-step run's throughput over DBOS Transact's direct mode, at every concurrency. */
  static final double TEN_STEPS_OVER_DBOS = 2.0;

  /** What a durable f.mcp call may add to the bare call, p50 and p99 (ms). */
  static final double MCP_ADDED_P50_MS = 1.0;

  static final double MCP_ADDED_P99_MS = 3.0;

  /** Each figure on the filled journal over the same figure on the empty one. */
  static final double GROWTH_BOUND = 1.2;

  /** The journal size the growth targets are set at; a smaller run says so in its rows. */
  static final long GROWTH_ENDED = 10_000_000;

  static final long GROWTH_WAITING = 100_000;

  private ScaleTargets() {}

  /** A target and the sections whose load it was measured under. */
  record Row(Target target, List<String> sections) {}

  static void render(Report results, StringBuilder md) {
    List<Row> rows = rows(results);
    if (rows.isEmpty()) {
      return;
    }
    md.append("\n## Targets at the limit and at scale\n\n")
        .append(
            "Each a ratio (or a difference) of two figures of this run, measured side by side;"
                + " the load average (1 min) is the machine's at the start and the end of the"
                + " sections it comes from.\n\n")
        .append(header("target", "measured", "bound", "verdict", "miss by", "load"));
    for (Row r : rows) {
      List<String> cells = new ArrayList<>(r.target().cells());
      cells.add(load(results, r.sections()));
      md.append(row(cells.toArray(String[]::new)));
    }
  }

  static List<Row> rows(Report results) {
    List<Row> out = new ArrayList<>();
    shortRuns(results, out);
    mcp(results, out);
    growth(results, out);
    timers(results, out);
    return out;
  }

  /** The load at the start of the first section named and at the end of the last one. */
  static String load(Report results, List<String> sections) {
    List<Report.SectionRun> ran =
        results.sections.stream().filter(s -> sections.contains(s.name())).toList();
    if (ran.isEmpty()) {
      return "";
    }
    return f1(ran.getFirst().loadStart()) + " → " + f1(ran.getLast().loadEnd());
  }

  private static void shortRuns(Report results, List<Row> out) {
    for (int calls : new int[] {1, 10}) {
      double bound = calls == 1 ? ONE_STEP_OVER_DBOS : TEN_STEPS_OVER_DBOS;
      for (ShortRunsBench.Cell d :
          results.dbos.stream()
              .filter(d -> d.calls() == calls)
              .sorted(Comparator.comparingInt(ShortRunsBench.Cell::c))
              .toList()) {
        Optional<ShortRunsBench.Cell> ours = ShortRunsBench.find(results.shortRuns, calls, d.c());
        if (ours.isEmpty()) {
          continue;
        }
        out.add(overDbos(results, d, ours.get(), bound));
      }
    }
    for (ShortRunsBench.Cell q : results.dbosQueued) {
      ShortRunsBench.find(results.shortRuns, q.calls(), q.c())
          .ifPresent(
              ours ->
                  out.add(
                      new Row(
                          new Target(
                              q.shape() + " runs/s over DBOS queue mode, C = " + q.c(),
                              f2(ours.runsPerSecond() / q.runsPerSecond())
                                  + "× ("
                                  + f1(ours.runsPerSecond())
                                  + " / "
                                  + f1(q.runsPerSecond())
                                  + ")",
                              "second baseline, no bound",
                              Optional.empty(),
                              ""),
                          List.of("shortruns", "dbos", "shortruns+dbos"))));
    }
  }

  /** This engine's rate over DBOS's direct mode for one load, against {@code bound}. */
  private static Row overDbos(
      Report results, ShortRunsBench.Cell d, ShortRunsBench.Cell ours, double bound) {
    double ratio = DbosMarkdown.ratio(results, d, Optional.of(ours));
    List<Double> rounds =
        results.shortRunsRounds.stream()
            .filter(r -> r.calls() == d.calls() && r.c() == d.c())
            .map(Report.ShortRunsRound::ratio)
            .filter(x -> !x.isNaN())
            .sorted()
            .toList();
    return new Row(
        new Target(
            d.shape() + " runs/s over DBOS direct, C = " + d.c(),
            f2(ratio)
                + "× ("
                + f1(ours.runsPerSecond())
                + " / "
                + f1(d.runsPerSecond())
                + (rounds.size() > 1
                    ? "; the median of "
                        + rounds.size()
                        + " rounds' ratios, "
                        + f2(rounds.getFirst())
                        + " to "
                        + f2(rounds.getLast())
                    : "")
                + ")",
            "≥ " + f1(bound) + "×",
            ratio >= bound,
            f2(bound / ratio)
                + "× short ("
                + f0(bound * d.runsPerSecond() - ours.runsPerSecond())
                + " runs/s more needed)"),
        List.of("shortruns", "dbos", "shortruns+dbos"));
  }

  private static void mcp(Report results, List<Row> out) {
    results.mcpRevisions.forEach(
        (name, m) -> {
          double p50 = m.durable().p50() - m.bareInterleaved().p50();
          double p99 = m.durable().p99() - m.bareInterleaved().p99();
          String where = " (" + biggest(m.stages()) + ")";
          out.add(
              new Row(
                  new Target(
                      "durable f.mcp added over the interleaved bare call, " + name + ", p50",
                      f2(p50) + " ms" + where,
                      "≤ " + f1(MCP_ADDED_P50_MS) + " ms",
                      p50 <= MCP_ADDED_P50_MS,
                      f2(p50 - MCP_ADDED_P50_MS) + " ms over"),
                  List.of("mcpstages")));
          out.add(
              new Row(
                  new Target(
                      "durable f.mcp added over the interleaved bare call, " + name + ", p99",
                      f2(p99) + " ms",
                      "≤ " + f1(MCP_ADDED_P99_MS) + " ms",
                      p99 <= MCP_ADDED_P99_MS,
                      f2(p99 - MCP_ADDED_P99_MS) + " ms over"),
                  List.of("mcpstages")));
        });
  }

  /** The two stages with the largest p50, so a miss says where its time went. */
  static String biggest(List<Stats> stages) {
    return IntStream.range(0, Math.min(stages.size(), McpStages.STAGES.size()))
        .boxed()
        .sorted(Comparator.comparingDouble((Integer i) -> -stages.get(i).p50()))
        .limit(2)
        .map(
            i -> {
              String stage = McpStages.STAGES.get(i);
              int detail = stage.indexOf(" (");
              return (detail < 0 ? stage : stage.substring(0, detail))
                  + " "
                  + f2(stages.get(i).p50());
            })
        .reduce((a, b) -> "largest stages: " + a + ", " + b)
        .orElse("no stages");
  }

  private static void growth(Report results, List<Row> out) {
    results.growth.ifPresent(
        r -> {
          String size =
              " at "
                  + f0(r.size().ended())
                  + " ended + "
                  + f0(r.size().waiting())
                  + " waiting"
                  + (r.size().ended() >= GROWTH_ENDED && r.size().waiting() >= GROWTH_WAITING
                      ? ""
                      : " (the target's size: "
                          + f0(GROWTH_ENDED)
                          + " + "
                          + f0(GROWTH_WAITING)
                          + ")");
          for (String figure : GrowthBench.FIGURES) {
            Stats empty = r.empty().latency().get(figure);
            Stats filled = r.filled().latency().get(figure);
            if (empty == null || filled == null) {
              continue;
            }
            for (boolean p99 : new boolean[] {false, true}) {
              double ratio = p99 ? filled.p99() / empty.p99() : filled.p50() / empty.p50();
              out.add(
                  new Row(
                      new Target(
                          "growth: " + figure + (p99 ? " p99" : " p50") + size,
                          f2(ratio)
                              + "× empty ("
                              + f2(p99 ? filled.p99() : filled.p50())
                              + " / "
                              + f2(p99 ? empty.p99() : empty.p50())
                              + " ms)",
                          "≤ " + f1(GROWTH_BOUND) + "×",
                          ratio <= GROWTH_BOUND,
                          f2(ratio / GROWTH_BOUND) + "× over"),
                      List.of("growth")));
            }
          }
          double rate = r.empty().runsPerSecond() / r.filled().runsPerSecond();
          out.add(
              new Row(
                  new Target(
                      "growth: " + GrowthBench.RATE + size,
                      f2(rate)
                          + "× slower filled ("
                          + f1(r.filled().runsPerSecond())
                          + " / "
                          + f1(r.empty().runsPerSecond())
                          + ")",
                      "≤ " + f1(GROWTH_BOUND) + "×",
                      rate <= GROWTH_BOUND,
                      f2(rate / GROWTH_BOUND) + "× over"),
                  List.of("growth")));
        });
  }

  private static void timers(Report results, List<Row> out) {
    results.timers.ifPresent(
        t ->
            out.add(
                new Row(
                    new Target(
                        f0(t.size().asleep())
                            + " runs asleep on one worker, "
                            + f0(t.size().due())
                            + " due in one second: wake-up lag, worker memory",
                        "p50 "
                            + f0(t.lag().p50())
                            + " ms, p99 "
                            + f0(t.lag().p99())
                            + " ms, all resumed in "
                            + f1(t.wakeSeconds())
                            + " s; RSS "
                            + f1(t.rssAsleep() / (double) MIB)
                            + " MiB asleep ("
                            + f1(t.rssIdle() / (double) MIB)
                            + " idle)",
                        "no bound set",
                        Optional.empty(),
                        ""),
                    List.of("timers"))));
  }
}
