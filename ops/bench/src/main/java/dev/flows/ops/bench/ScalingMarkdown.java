package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Scaling over worker processes (a run that measured it). */
final class ScalingMarkdown {
  private ScalingMarkdown() {}

  static void render(Report results, StringBuilder md) {
    if (results.scaling.isEmpty()) {
      return;
    }
    md.append("\n## Scaling over worker processes (f.step flows)\n\n")
        .append(
            "Each worker a JVM of its own with "
                + ScalingBench.SCALING_CAPACITY
                + " slots, and "
                + ScalingBench.SCALING_CAPACITY
                + " flows per worker admitted at once, each making "
                + results.scalingSteps
                + " steps; the median of "
                + Runs.STEP_ROUNDS
                + " rounds after the workload ran unmeasured in the same workers (JIT warm-up, as"
                + " long per worker as one engine's elsewhere)."
                + " The workers and Postgres share this machine's cores: more processes add no"
                + " CPU here, so this shows what coordinating through the journal costs, not"
                + " what more machines would add. Claims per worker: the flow bodies the"
                + " worker that claimed fewest and the one that claimed most took over the"
                + " section (warm-up included), from flows.step_attempts.\n\n")
        .append(
            header(
                "worker processes",
                "f.step steps/s",
                "× 1 process",
                "claims per worker (fewest / most)"));
    double one =
        results.scaling.containsKey(1) ? results.scaling.get(1).stepsPerSecond() : Double.NaN;
    results.scaling.forEach(
        (p, r) ->
            md.append(
                row(
                    String.valueOf(p),
                    f0(r.stepsPerSecond()),
                    f2(r.stepsPerSecond() / one),
                    r.fewestClaims() + " / " + r.mostClaims())));
  }
}
