package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.MIB;
import static dev.flows.ops.bench.Tables.f0;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.header;
import static dev.flows.ops.bench.Tables.row;

/** Many timers at once on one worker: its memory, and the wake-up lag of the runs due together. */
final class TimersMarkdown {
  private TimersMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.timers.ifPresent(r -> render(r, md));
  }

  private static void render(TimersBench.Result r, StringBuilder md) {
    md.append("\n## Many timers at once\n\n")
        .append(
            f0(r.size().asleep())
                + " runs asleep in `f.sleepUntil` on one worker JVM (`flows worker`'s JVM options,"
                + " the default capacity of "
                + dev.flows.worker.WorkerConfig.DEFAULT_CAPACITY
                + " slots), "
                + f0(r.size().due())
                + " of them due within the same second, the rest a day later. The worker's RSS"
                + " and heap after a full GC idle and with every run asleep; the lag from each"
                + " due time (the body's memo) to the start of the attempt that resumes it, and"
                + " from the first due time to the last resumption (journal times).\n\n")
        .append(
            header(
                "runs asleep",
                "due in one second",
                "fell asleep (runs/s)",
                "RSS MiB idle / asleep",
                "heap after GC MiB idle / asleep",
                "resumed",
                "due → resumed p50 ms",
                "p99 ms",
                "max ms",
                "first due → last resumed s"))
        .append(
            row(
                f0(r.asleep()),
                f0(r.size().due()),
                f1(r.asleepPerSecond()),
                f1(r.rssIdle() / (double) MIB) + " / " + f1(r.rssAsleep() / (double) MIB),
                f1(r.heapIdle() / (double) MIB) + " / " + f1(r.heapAsleep() / (double) MIB),
                f0(r.resumed()),
                f1(r.lag().p50()),
                f1(r.lag().p99()),
                f1(r.lag().ms(1.0)),
                f1(r.wakeSeconds())));
  }
}
