package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.MIB;
import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.row;

/** Sleeping runs (durable timers), under the Recovery section (a run that measured them). */
final class SleepersMarkdown {
  private SleepersMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.sleepers.ifPresent(
        s ->
            md.append(
                "\n### Sleeping runs (durable timers)\n\n"
                    + s.runs()
                    + " runs each sleeping in `f.sleepUntil` to one due time, on one worker (its"
                    + " attempt given back: no thread, lease or memory per sleeper). RSS and threads"
                    + " of the worker while they sleep; lag from the due time (journaled in the"
                    + " body's memo) to the start of the attempt that resumes each (journal"
                    + " time).\n\n"
                    + "| runs | asleep at once | worker RSS (MiB) | threads idle | threads with all"
                    + " asleep | resumed | due→resume p50 (ms) | p99 (ms) |\n"
                    + "|---|---|---|---|---|---|---|---|\n"
                    + row(
                        String.valueOf(s.runs()),
                        String.valueOf(s.asleep()),
                        f1(s.rss() / (double) MIB),
                        String.valueOf(s.threadsIdle()),
                        String.valueOf(s.threadsAsleep()),
                        String.valueOf(s.resumed()),
                        f1(s.lagP50Ms()),
                        f1(s.lagP99Ms()))));
  }
}
