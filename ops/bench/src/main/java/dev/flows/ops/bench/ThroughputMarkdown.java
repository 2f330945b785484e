package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/**
 * Engine throughput: f.step and deterministic no-op steps, and the no-op backlog through the
 * journal alone.
 */
final class ThroughputMarkdown {
  private ThroughputMarkdown() {}

  static void render(Report results, StringBuilder md) {
    md.append("\n## Engine throughput\n\n");
    if (!results.steps.isEmpty()) {
      md.append(
          "f.step: c flows admitted at once, each making "
              + results.stepsPerFlow
              + " steps (one flow of "
              + 4 * results.stepsPerFlow
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
    for (int c : results.steps.keySet()) {
      md.append(
          row(
              String.valueOf(c),
              f0(results.steps.get(c)),
              f2(results.steps.get(c) / results.inserts.get(c).perSecond()),
              f0(results.noop.getOrDefault(c, Double.NaN)),
              f2(results.noop.getOrDefault(c, Double.NaN) / results.claims.get(c).perSecond())));
    }

    if (!results.noopAlone.isEmpty()) {
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
      results.noopAlone.forEach(
          (c, a) ->
              md.append(
                  row(
                      String.valueOf(c),
                      f0(a.perSecond()),
                      f2(results.noop.get(c) / a.perSecond()),
                      f2(a.claim().p50()),
                      f2(a.renew().p50()),
                      f2(a.complete().p50()))));
    }
  }
}
