package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.worker.TransientFaults;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

  /** How many due schedules are read at a time; a poll reads batch after batch. */
  public static final int BATCH = 100;

  /**
   * Schedules a worker takes ticks of at once: within the connections a worker's pool keeps beyond
   * its capacity.
   */
  public static final int TAKERS = 4;

  private final ExecutorService takers =
      Executors.newFixedThreadPool(
          TAKERS, Thread.ofPlatform().daemon().name("flows-schedule-taker-", 0).factory());

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

  /**
   * Takes the ticks due now, a batch of due schedules at a time until a batch is not full (many
   * schedules due at one second are taken in one poll, not one batch per poll); answers how many
   * ticks it decided.
   */
  public int tickOnce() {
    Set<String> served = flows.get();
    if (served.isEmpty()) {
      return 0;
    }
    int decided = 0;
    while (!stopped) {
      List<ScheduleState> due = journal.dueSchedules(served, BATCH);
      int taken = take(due);
      decided += taken;
      // A full batch that decided nothing holds schedules left to other workers (another
      // version): the next poll looks again.
      if (due.size() < BATCH || taken == 0) {
        break;
      }
    }
    return decided;
  }

  /**
   * Takes the ticks of {@code due}, {@link #TAKERS} schedules at once: each take is a transaction
   * of its own, bound by its commit, so concurrent takes share the database's commits.
   */
  private int take(List<ScheduleState> due) {
    List<Callable<Integer>> takes = new ArrayList<>();
    for (ScheduleState s : due) {
      templates.apply(s.definition()).ifPresent(t -> takes.add(() -> take(s, t)));
    }
    int decided = 0;
    try {
      for (Future<Integer> f : takers.invokeAll(takes)) {
        decided += f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
    return decided;
  }

  private int take(ScheduleState s, StartRun template) {
    int decided = 0;
    for (ScheduleEntry e : journal.takeTicks(s.name(), template, by)) {
      if (e instanceof ScheduleEntry.TickStarted || e instanceof ScheduleEntry.TickNotStarted) {
        decided++;
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
    takers.shutdown();
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
