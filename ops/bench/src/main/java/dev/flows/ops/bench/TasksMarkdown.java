package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.MIB;
import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.f2;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Task-backed calls in flight on one worker (a run that measured them). */
final class TasksMarkdown {
  private TasksMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.tasks.ifPresent(t -> render(t, md));
  }

  private static void render(Report.Tasks t, StringBuilder md) {
    resources(t, md);
    polls(t, md);
  }

  /** What was measured, then threads and memory idle and with every task working. */
  private static void resources(Report.Tasks t, StringBuilder md) {
    md.append("\n## Task-backed calls in flight on one worker\n\n")
        .append(t.runs())
        .append(" runs, each one durable `f.mcp` call of the task test server's `slow` tool")
        .append(" (Streamable HTTP, in the benchmark's JVM), made as a task that works ")
        .append(f1(t.taskMs() / 1000.0))
        .append(" s and hints a poll interval of ")
        .append(f1(t.hintMs() / 1000.0))
        .append(" s; one worker JVM (`flows worker`'s JVM options) of ")
        .append(t.capacity())
        .append(" slots. Threads: `/proc` (OS threads) and `jcmd Thread.dump_to_file -format=json`")
        .append(" (platform and virtual), idle before the runs and once every task works at once;")
        .append(" memory: RSS and heap after a full GC at the same two moments. Polls: the")
        .append(" server's own events log (its clock), every gap from a task's creation to its")
        .append(" first `tasks/get` and between two `tasks/get` of one task.\n\n")
        .append(
            header(
                "tasks working at once",
                "ramp s",
                "OS threads idle / plateau (most)",
                "platform threads idle / plateau",
                "virtual threads idle / plateau",
                "attempts running at plateau (most)",
                "bodies suspended",
                "RSS MiB idle / plateau",
                "heap after GC MiB idle / plateau",
                "heap KiB per task",
                "drain s",
                "runs succeeded"))
        .append(
            row(
                t.working() + " of " + t.runs(),
                f1(t.rampSeconds()),
                t.idle().procThreads()
                    + " / "
                    + t.plateau().procThreads()
                    + " ("
                    + t.maxProcThreads()
                    + ")",
                t.idle().dump().platform() + " / " + t.plateau().dump().platform(),
                t.idle().dump().virtual() + " / " + t.plateau().dump().virtual(),
                t.plateau().running() + " (" + t.maxRunning() + ")",
                String.valueOf(t.plateau().suspended()),
                f1(t.idle().rss() / (double) MIB) + " / " + f1(t.plateau().rss() / (double) MIB),
                mib(t.idle().liveHeap()) + " / " + mib(t.plateau().liveHeap()),
                f1(t.liveHeapPerTask() / 1024),
                f1(t.drainSeconds()),
                t.succeeded() + " of " + t.runs()))
        .append("\n");
  }

  /** How the server's tasks were polled, from its own events log. */
  private static void polls(Report.Tasks t, StringBuilder md) {
    TaskPolls p = t.polls();
    md.append(
            header(
                "tasks",
                "tasks/get",
                "per task",
                "gaps",
                "shortest gap ms",
                "median gap ms",
                "gaps < hint − 5 %",
                "plateau s",
                "polls/s on the plateau",
                "tasks / hint (/s)",
                "completed",
                "task end → seen completed p50 / max s"))
        .append(
            row(
                String.valueOf(p.tasks()),
                String.valueOf(p.polls()),
                f2(p.pollsPerTask()),
                String.valueOf(p.gaps()),
                f0(p.minGapMs()),
                f0(p.medianGapMs()),
                String.valueOf(p.belowHint()),
                f1(p.plateauSeconds()),
                f1(p.plateauRate()),
                f1(p.hintedRate(t.hintMs())),
                String.valueOf(p.completed()),
                f1(p.endLagMedianMs() / 1000) + " / " + f1(p.endLagMaxMs() / 1000)));
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "n/a" : f1(bytes / (double) MIB);
  }
}
