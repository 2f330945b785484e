package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** The replay check before a deploy: how long checking N waiting runs' journals takes. */
final class ReplayCheckMarkdown {
  private ReplayCheckMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.replayCheck.ifPresent(r -> render(r, md));
  }

  private static void render(ReplayCheckBench.Result r, StringBuilder md) {
    md.append("\n## Replay check before a deploy\n\n")
        .append(
            f0(r.runs())
                + " runs of a flow of "
                + ReplayCheckBench.STEPS
                + " `f.step`s waiting on a signal (started and brought to their wait in "
                + f2(r.fillSeconds())
                + " s), checked by `Flows.replayCheck(…, ReplayCheck.active())` (what `flows"
                + " replay-check` runs) against the same code and against a version that inserts"
                + " a step before the wait; each check from a fresh instance with no worker."
                + " The journal's rows (runs, steps, entries, elections) "
                + (r.rowsUnchanged() ? "were unchanged" : "CHANGED")
                + " by the checks.\n\n")
        .append(header("code", "runs checked", "seconds", "runs/s", "verdicts"))
        .append(
            row(
                "the same",
                f0(r.runs()),
                f2(r.sameSeconds()),
                f0(r.runs() / r.sameSeconds()),
                f0(r.sameCompatible()) + " compatible"))
        .append(
            row(
                "a step inserted before the wait",
                f0(r.runs()),
                f2(r.changedSeconds()),
                f0(r.runs() / r.changedSeconds()),
                f0(r.changedDiverging()) + " diverge"));
  }
}
