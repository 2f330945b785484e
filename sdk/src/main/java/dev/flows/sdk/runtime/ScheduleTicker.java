package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.worker.TransientFaults;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's schedule ticker: every poll it reads the schedules of its flows that are due by the
 * journal's clock ({@link Journal#dueSchedules}) and takes their ticks ({@link Journal#takeTicks}),
 * each tick's run built from this worker's flow ({@code templates}). Many workers tick at once; the
 * journal decides each tick once, so whichever sees it due first starts it.
 */
public final class ScheduleTicker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScheduleTicker.class);

  /** How often a worker looks for due schedules, unless told otherwise. */
  public static final Duration DEFAULT_POLL = Duration.ofMillis(250);

  /** The most due schedules one poll takes ticks of; the rest wait for the next poll. */
  public static final int BATCH = 100;

  private final Journal journal;
  private final Supplier<Set<String>> flows;
  private final Function<ScheduleDefinition, Optional<StartRun>> templates;
  private final String by;
  private final Duration poll;
  private volatile Thread thread;
  private volatile boolean stopped;

  /**
   * @param flows the names of the flows this worker starts ticks of
   * @param templates the run of a tick of a schedule (its admission key is set by the journal);
   *     empty when this worker cannot start that schedule's flow (another version)
   * @param by who takes the ticks, journaled with them (the worker id)
   */
  public ScheduleTicker(
      Journal journal,
      Supplier<Set<String>> flows,
      Function<ScheduleDefinition, Optional<StartRun>> templates,
      String by,
      Duration poll) {
    this.journal = journal;
    this.flows = flows;
    this.templates = templates;
    this.by = by;
    this.poll = poll;
  }

  /** Takes the ticks due now; answers how many ticks it decided. */
  public int tickOnce() {
    Set<String> served = flows.get();
    if (served.isEmpty()) {
      return 0;
    }
    int decided = 0;
    for (ScheduleState s : journal.dueSchedules(served, BATCH)) {
      Optional<StartRun> template = templates.apply(s.definition());
      if (template.isEmpty()) {
        continue;
      }
      for (ScheduleEntry e : journal.takeTicks(s.name(), template.get(), by)) {
        if (e instanceof ScheduleEntry.TickStarted || e instanceof ScheduleEntry.TickNotStarted) {
          decided++;
        }
      }
    }
    return decided;
  }

  /** Ticks on a thread of its own every poll until closed. */
  public synchronized void start() {
    if (thread != null) {
      return;
    }
    thread =
        Thread.ofPlatform()
            .daemon()
            .name("flows-schedule-ticker")
            .start(
                () -> {
                  while (!stopped) {
                    try {
                      tickOnce();
                    } catch (RuntimeException e) {
                      TransientFaults.log(LOG, "taking schedule ticks failed", e);
                    }
                    try {
                      TimeUnit.NANOSECONDS.sleep(poll.toNanos());
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
  }

  @Override
  public void close() {
    stopped = true;
    Thread t = thread;
    if (t != null) {
      t.interrupt();
      try {
        t.join(poll.toMillis() + 5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
