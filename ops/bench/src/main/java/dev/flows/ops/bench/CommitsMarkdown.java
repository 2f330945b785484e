package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f3;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Commits on the success path: the marginal transactions of an f.step and of a durable f.mcp. */
final class CommitsMarkdown {
  private CommitsMarkdown() {}

  static void render(Report results, StringBuilder md) {
    md.append("\n## Commits on the success path\n\n")
        .append(
            "Marginal cost: (a run with N calls − the same run with 0 calls) / N, each on a fresh"
                + " database (autovacuum off on the flows tables and the catalogs vacuumed"
                + " beforehand: autovacuum's transactions would count) and a fresh engine whose"
                + " pool has opened all its connections before counting starts and is closed"
                + " before reading. The engine's timer-driven claim polls and reconciles wait a"
                + " minute here (it is woken by its notifications as always): they are on no"
                + " call's path, and their number depends on how long a run lasts. `xact_commit`"
                + " counts every transaction, reads included; `writes` counts transaction ids"
                + " handed out (transactions that flush WAL at commit). The net column leaves out"
                + " the pool's liveness checks: HikariCP checks a connection that sat idle over"
                + " 500 ms before lending it, the driver makes that an empty query, and Postgres"
                + " counts it as a transaction; how many there are depends on timing, not on the"
                + " calls, and the bench counts them on the pool's connections.\n\n")
        .append(
            header(
                "call",
                "N",
                "xact_commit per call (raw)",
                "writes per call",
                "xact_commit per call, less the pool's liveness checks",
                "pool liveness checks (N run / 0 run)",
                "engine transactions in all (N run − 0 run)"));
    results.commits.forEach(
        (call, v) ->
            md.append(
                row(
                    call,
                    f0(v[0]),
                    f3(v[1]),
                    f3(v[2]),
                    f3(v[3]),
                    f0(v[4]) + " / " + f0(v[5]),
                    f0(v[6]))));
  }
}
