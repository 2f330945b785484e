package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** The report's title and its Environment section: the machine, the run and Postgres's settings. */
final class EnvironmentMarkdown {
  private EnvironmentMarkdown() {}

  static void render(Report results, Bench.Plan plan, StringBuilder md) {
    md.append("# flows benchmark results\n\n");
    md.append(
        "Written by `ops/bench/run"
            + (plan.mode().equals("full") ? "" : " --" + plan.mode())
            + "` (see SURFACE.md, Benchmarks). Every ratio is against the baseline measured in"
            + " this same run on the same Postgres; absolute numbers vary run to run with the"
            + " disk.\n\n");
    md.append("## Environment\n\n").append(header("what", "value"));
    results.env.forEach((k, v) -> md.append(row(k, v)));
    md.append(row("run time", results.runtime.toSeconds() + " s"));
    results.pgSettings.forEach((k, v) -> md.append(row("postgres " + k, v)));
    md.append(
        "\nEngines are assembled as a deployment would (`FlowsEngine`, product defaults: pool 10,"
            + " poll 1 s, reconcile 5 s, lease 30 s) except capacity (= concurrency; 2×+2 for"
            + " f.mcp, which holds a body and a child at once) and the lease where stated.\n\n");
    if (!results.sections.isEmpty()) {
      md.append(
              "Sections in the order they ran, with the 1-minute load average at each one's start")
          .append(" and end:\n\n")
          .append(header("section", "began (UTC)", "minutes", "load at start → end"));
      for (Report.SectionRun s : results.sections) {
        md.append(
            row(
                s.name(),
                s.began().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString(),
                f1(s.seconds() / 60),
                f1(s.loadStart()) + " → " + f1(s.loadEnd())));
      }
      md.append("\n");
    }
  }
}
