package dev.flows.ops.bench;

import static dev.flows.ops.bench.Tables.f1;
import static dev.flows.ops.bench.Tables.row;

/** Schedules' tick → run lag, under the Recovery section (a run that measured them). */
final class SchedulesMarkdown {
  private SchedulesMarkdown() {}

  static void render(Report results, StringBuilder md) {
    results.schedules.ifPresent(
        s ->
            md.append(
                "\n### Schedules\n\n"
                    + s.schedules()
                    + " schedules of one flow, each `* * * * *`, all due at second 0 of the same"
                    + " minute, on one worker (capacity 16, the ticker's default poll). Lag from"
                    + " each tick's nominal time to its run's admission (`flows.runs.created_at`),"
                    + " journal time, of that minute's ticks only. The ticker takes"
                    + " `ScheduleTicker.BATCH` schedules' ticks per transaction (`takeDueTicks`),"
                    + " `ScheduleTicker.TAKERS` batches at once; a run's `created_at` is its batch"
                    + " transaction's start, so the batch's own duration (up to its commit) is not"
                    + " in the lag.\n\n"
                    + "| schedules | ticks admitted | tick→admitted p50 (ms) | p99 (ms) | max (ms) |\n"
                    + "|---|---|---|---|---|\n"
                    + row(
                        String.valueOf(s.schedules()),
                        String.valueOf(s.admitted()),
                        f1(s.lagP50Ms()),
                        f1(s.lagP99Ms()),
                        f1(s.lagMaxMs()))));
  }
}
