package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

import java.util.ArrayList;
import java.util.List;

/** Short runs through the embedding API: runs/s, commits per run, and where a run's time goes. */
final class ShortRunsMarkdown {
  private ShortRunsMarkdown() {}

  static void render(Report results, StringBuilder md) {
    if (results.shortRuns.isEmpty()) {
      return;
    }
    rates(results, md);
    stages(results, md);
  }

  /** What a short run is, then per shape and clients: runs/s, commits per run, latency. */
  private static void rates(Report results, StringBuilder md) {
    md.append("\n## Short runs\n\n")
        .append(
            "Runs as an application makes them through the embedding API: C client threads, each"
                + " starting a run (`Flows.start`) and waiting for its result"
                + " (`RunHandle.result`), then starting the next; one `Flows` per load, on product"
                + " defaults with a worker of capacity C, its first runs unmeasured (for 1 s, 0.5 s"
                + " quick, at least one per client: its pool and start-up work there);"
                + " before the first load, each shape runs unmeasured at 4 clients for the"
                + " warm-up time (6 s, 3 s quick), on DBOS alike;"
                + " a run started where that worker has a free slot is admitted already claimed"
                + " by it, and, started without a key as here, its body runs before the"
                + " admission: a body that ends within `SdkConfig.memoDelay` is admitted with its"
                + " end in one statement. \"Started without a worker\": the clients' `Flows` has no worker and a"
                + " second `Flows` (worker of capacity C) claims the runs, the path of a process"
                + " that only starts runs (its commits per run include the second `Flows`'s"
                + " fixed cost)."
                + " Commits per run: `xact_commit` over the `Flows` lifetime (built, the runs,"
                + " closed), less a lifetime without runs, divided by every run it made; the"
                + " worker's timer-driven polls are in it, as they are in production. Unanswered:"
                + " runs whose result did not come within the client's timeout (10 s, 60 s in a"
                + " full run), left out of every other column."
                + (results.shortRuns.stream().anyMatch(c -> !c.roundRates().isEmpty())
                    ? " A load measured in rounds (the f.step loads, alternating with DBOS's):"
                        + " runs/s is the median of its rounds', every other column is over all"
                        + " their runs."
                    : "")
                + "\n\n")
        .append(
            header(
                "runs of",
                "C",
                "runs",
                "unanswered",
                "runs/s",
                "steps or calls/s",
                "commits per run",
                "start → result p50 ms",
                "p99 ms"));
    for (ShortRunsBench.Cell c : results.shortRuns) {
      md.append(
          row(
              c.shape(),
              String.valueOf(c.c()),
              f0(c.runs()),
              f0(c.unanswered()),
              f1(c.runsPerSecond()),
              f0(c.runsPerSecond() * c.calls()),
              f1(c.commitsPerRun()),
              f2(c.total().p50()),
              f2(c.total().p99())));
    }
  }

  /** Where a run's time goes, for the runs admitted first and those admitted with their end. */
  private static void stages(Report results, StringBuilder md) {
    md.append(
        "\nWhere a run's time goes, p50 / p99 ms, over the runs admitted before their body ran"
            + " (counted in the third column). Start and result seen: the caller's"
            + " clock; body entered: the body's first line; the rest are the journal's times,"
            + " read by the database's clock inside the writing transaction (so a commit's"
            + " flush falls in the stage after it): admitted = the run row's `created_at`"
            + " (read as the admission transaction begins), claimed = the body's first"
            + " `step.attempt.started`, last step = the run's (and its children's) last"
            + " `effect.confirmed`, run ended = `completed_at`.\n\n");
    stageTable(
        md,
        results,
        ShortRunsBench.STAGES,
        "runs admitted first",
        ShortRunsBench.Cell::admittedFirst,
        c -> c.stages().subList(1, c.stages().size()));
    md.append(
        "\nThe same for the runs whose body ran first and ended before anything was journaled,"
            + " admitted with their end in one statement (admitted = run ended: that"
            + " statement's time, as it begins; its commit's flush falls in the stage after it;"
            + " body returned: the body's last line; start returned: `Flows.start` returned to"
            + " the caller, who then waits for the result). Runs"
            + " whose body ran first and outlasted the delay (admitted claimed during the body)"
            + " are in neither table.\n\n");
    stageTable(
        md,
        results,
        ShortRunsBench.BODY_FIRST_STAGES,
        "runs admitted with their end",
        ShortRunsBench.Cell::admittedWithEnd,
        ShortRunsBench.Cell::bodyFirst);
  }

  private static void stageTable(
      StringBuilder md,
      Report results,
      List<String> stages,
      String counted,
      java.util.function.ToLongFunction<ShortRunsBench.Cell> count,
      java.util.function.Function<ShortRunsBench.Cell, List<Stats>> of) {
    List<String> cols = new ArrayList<>(List.of("runs of", "C", counted));
    cols.addAll(stages);
    md.append(header(cols.toArray(String[]::new)));
    for (ShortRunsBench.Cell c : results.shortRuns) {
      long n = count.applyAsLong(c);
      List<String> cells = new ArrayList<>(List.of(c.shape(), String.valueOf(c.c()), f0(n)));
      for (Stats s : of.apply(c)) {
        cells.add(n == 0 ? "n/a" : f2(s.p50()) + " / " + f2(s.p99()));
      }
      md.append(row(cells.toArray(String[]::new)));
    }
  }
}
