package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

import java.util.List;
import java.util.stream.Collectors;

/** The cli section: each command's wall time per call, and its median over a bare JVM start's. */
final class CliMarkdown {
  private CliMarkdown() {}

  static void render(Report results, StringBuilder md) {
    if (results.cli.isEmpty()) {
      return;
    }
    List<CliBench.Timed> rows = results.cli;
    double bare = rows.getFirst().wall().p50();
    md.append("\n## CLI latency\n\n")
        .append("Each command started as a user starts it (`./flows`, one JVM per call), ")
        .append(rows.getFirst().wall().sortedNanos().size())
        .append(" calls each, round by round; the first row is a bare `java -version` of the same")
        .append(" JDK in the same run, and × bare is each median over its median.\n\n")
        .append(header("command", "min ms", "median ms", "max ms", "× bare", "exit codes"));
    for (CliBench.Timed t : rows) {
      md.append(
          row(
              t.command(),
              f0(t.wall().ms(0)),
              f0(t.wall().p50()),
              f0(t.wall().ms(1)),
              f2(t.wall().p50() / bare),
              t.exits().stream().sorted().map(String::valueOf).collect(Collectors.joining(", "))));
    }
  }
}
