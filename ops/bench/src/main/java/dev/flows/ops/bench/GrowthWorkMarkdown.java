package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

import java.util.Map;

/** The growth section's load-independent parts: the database's work per verb call, and size. */
final class GrowthWorkMarkdown {
  /** The issue's journal: ended runs and waiting runs. */
  static final long ISSUE_ENDED = 10_000_000;

  static final long ISSUE_WAITING = 100_000;

  private GrowthWorkMarkdown() {}

  static void render(GrowthBench.Result r, StringBuilder md) {
    if (r.emptyWork().isPresent() && r.filledWork().isPresent()) {
      work(r.emptyWork().get(), r.filledWork().get(), md);
    } else {
      md.append(
          "\nThe database's work per call was not counted: this server does not load"
              + " pg_stat_statements (`ops/bench/run`'s own Postgres does).\n");
    }
    size(r, md);
  }

  private static void work(GrowthWork.Work empty, GrowthWork.Work filled, StringBuilder md) {
    md.append(
            "\nThe database's work per call (pg_stat_statements, "
                + GrowthWork.CALLS
                + " calls of each verb and "
                + GrowthWork.READS
                + " of each read on both journals after the rounds, top-level statements: a"
                + " function's own statements included). These counts do not depend on the"
                + " machine's load; buffers read are those not found in shared buffers.\n\n")
        .append(
            header(
                "verb",
                "buffers hit + read, empty",
                "filled",
                "ratio",
                "buffers read, empty",
                "filled",
                "dirtied, empty",
                "filled",
                "WAL bytes, empty",
                "filled"));
    for (String verb : filled.verbs().keySet()) {
      double[] e = empty.verbs().get(verb);
      double[] f = filled.verbs().get(verb);
      md.append(
          row(
              verb,
              f1(e[0] + e[1]),
              f1(f[0] + f[1]),
              f2((f[0] + f[1]) / (e[0] + e[1])),
              f2(e[1]),
              f2(f[1]),
              f2(e[2]),
              f2(f[2]),
              f0(e[3]),
              f0(f[3])));
    }
    md.append(
            "\nThe statements whose buffers (hit + read) per call grew most, nested ones"
                + " included:\n\n")
        .append(header("statement", "empty", "filled"));
    for (String[] s : GrowthWork.grown(empty, filled)) {
      md.append(row("`" + s[0].replace("|", "\\|").replace("`", "'") + "`", s[1], s[2]));
    }
  }

  private static void size(GrowthBench.Result r, StringBuilder md) {
    long runs = r.size().ended() + r.size().waiting();
    long total = r.bytes().values().stream().mapToLong(Long::longValue).sum();
    double perRun = (double) total / runs;
    md.append(
            "\nSize of the filled journal (`pg_total_relation_size`: table, indexes, TOAST) per"
                + " run of the mix:\n\n")
        .append(header("table", "MB", "bytes per run"));
    for (Map.Entry<String, Long> t : r.bytes().entrySet()) {
      if (t.getValue() < runs) {
        continue; // under a byte per run: a table the mix does not write
      }
      md.append(row(t.getKey(), f1(t.getValue() / 1e6), f0((double) t.getValue() / runs)));
    }
    md.append(row("all", f1(total / 1e6), f0(perRun)))
        .append(
            "\nProjected at the issue's "
                + f0(ISSUE_ENDED)
                + " ended + "
                + f0(ISSUE_WAITING)
                + " waiting runs: "
                + f1(perRun * (ISSUE_ENDED + ISSUE_WAITING) / 1e9)
                + " GB of tables and indexes (WAL and an index build's sort files come on"
                + " top).\n");
  }
}
