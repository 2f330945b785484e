package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

import java.util.List;

/** Cost as the journal grows: every figure empty and filled, and their ratio. */
final class GrowthMarkdown {
  /** The target: every figure on the filled journal within this factor of the empty one's. */
  static final double TARGET = 1.2;

  private GrowthMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.growth.ifPresent(r -> render(r, md));
  }

  private static void render(GrowthBench.Result r, StringBuilder md) {
    md.append("\n## Cost as the journal grows\n\n")
        .append(
            "Two databases on the same server: one filled with "
                + f0(r.size().ended())
                + " copies of real ended runs (one in "
                + GrowthTemplates.LONG_SHARE
                + " of "
                + GrowthTemplates.TEMPLATE_STEPS
                + " f.steps, the others of 1) and "
                + f0(r.size().waiting())
                + " copies of waiting runs (half asleep on a timer due in a day, half awaiting a"
                + " signal), every row a template run wrote copied with INSERT ... SELECT"
                + " generate_series, run ids shaped as the engine's (filled in "
                + f1(r.fillSeconds())
                + " s), and one empty, made after the fill. Both are measured in "
                + r.rounds()
                + " alternating rounds (empty then filled, then filled then empty, ...), so a"
                + " change of the machine's load hits both alike; each figure pools its rounds'"
                + " samples. Journal verbs one at a time, no worker running (admit, claim, memo,"
                + " signal, complete), and the list statement of `runs list` and the console's"
                + " first page and what `runs show` reads: for these the two journals take turns"
                + " call by call. Then, per journal in the round's order, an engine of capacity 4:"
                + " a signal sent to a waiting run until its body goes on, timers due 20 ms apart"
                + " until their bodies go on, and 1-step runs admitted at once. Target: filled / empty"
                + " at most "
                + TARGET
                + " for every figure. The last column gives each round's p50 ratio: their spread"
                + " is the noise.\n\n")
        .append(latencies(r));
    double ratio = r.filled().runsPerSecond() / r.empty().runsPerSecond();
    md.append("\n")
        .append(header("figure", "empty", "filled", "filled / empty", "target", "per round"))
        .append(
            row(
                GrowthBench.RATE,
                f1(r.empty().runsPerSecond()),
                f1(r.filled().runsPerSecond()),
                f2(ratio),
                ratio >= 1 / TARGET ? "met" : "missed",
                rounds(r, GrowthBench.RATE)));
    GrowthWorkMarkdown.render(r, md);
    for (String p : r.plans()) {
      md.append("\nThe console's first page on the filled journal (EXPLAIN ANALYZE):\n\n```\n")
          .append(p)
          .append("```\n");
    }
  }

  /** One row per journal figure: p50 and p99, empty and filled, and whether it met the target. */
  private static String latencies(GrowthBench.Result r) {
    StringBuilder md =
        new StringBuilder(
            header(
                "figure",
                "empty p50 ms",
                "filled p50 ms",
                "p50 ratio",
                "empty p99 ms",
                "filled p99 ms",
                "p99 ratio",
                "target",
                "p50 ratio per round"));
    for (String f : GrowthBench.FIGURES) {
      Stats e = r.empty().latency().get(f);
      Stats g = r.filled().latency().get(f);
      double worst = Math.max(g.p50() / e.p50(), g.p99() / e.p99());
      md.append(
          row(
              f,
              f2(e.p50()),
              f2(g.p50()),
              f2(g.p50() / e.p50()),
              f2(e.p99()),
              f2(g.p99()),
              f2(g.p99() / e.p99()),
              worst <= TARGET ? "met" : "missed",
              rounds(r, f)));
    }
    return md.toString();
  }

  private static String rounds(GrowthBench.Result r, String figure) {
    return String.join(
        " ", r.roundRatios().getOrDefault(figure, List.of()).stream().map(Tables::f2).toList());
  }
}
