package dev.flows.ops.bench;

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
                + " section).\n\n")
        .append(table(results, results.dbos));
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
              f2(ours.map(o -> o.runsPerSecond() / d.runsPerSecond()).orElse(Double.NaN)),
              f1(d.commitsPerRun()),
              f1(ours.map(ShortRunsBench.Cell::commitsPerRun).orElse(Double.NaN)),
              f2(d.total().p50()),
              f2(ours.map(o -> o.total().p50()).orElse(Double.NaN))));
    }
    return md.toString();
  }
}
