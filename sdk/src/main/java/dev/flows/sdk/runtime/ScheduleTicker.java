package dev.flows.sdk.runtime;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.TickBatch;
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
 * A worker's schedule ticker: every poll it takes the ticks of the schedules of its flows that are
 * due by the journal's clock, a batch of schedules per transaction ({@link Journal#takeDueTicks}),
 * each tick's run built from this worker's flow ({@code templates}). Many workers tick at once; the
 * journal decides each tick once, so whichever sees it due first starts it.
 */
public final class ScheduleTicker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ScheduleTicker.class);

  /** How often a worker looks for due schedules, unless told otherwise. */
  public static final Duration DEFAULT_POLL = Duration.ofMillis(250);

  /** How many due schedules one take holds, in one transaction; a poll takes batch after batch. */
  public static final int BATCH = 100;

  /**
   * Batches a worker takes at once when many schedules are due: within the connections a worker's
   * pool keeps beyond its capacity.
   */
  public static final int TAKERS = 4;

  // Replaced when the ticker starts again after a close (a worker drained and started again).
  private volatile ExecutorService takers = newTakers();

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
   * Takes the ticks due now, a batch of due schedules per journal call and per transaction ({@link
   * Journal#takeDueTicks}); when the first batch is full, {@link #TAKERS} takers take batch after
   * batch at once (the journal hands each a different batch) until a batch is not full, so many
   * schedules due at one second are taken in one poll. Answers how many ticks it decided.
   */
  public int tickOnce() {
    Set<String> served = flows.get();
    if (served.isEmpty()) {
      return 0;
    }
    TickBatch first = journal.takeDueTicks(served, BATCH, templates, by);
    if (!more(first)) {
      return first.decided();
    }
    List<Callable<Integer>> loops = new ArrayList<>();
    for (int i = 0; i < TAKERS; i++) {
      loops.add(() -> takeBatches(served));
    }
    int decided = first.decided();
    try {
      for (Future<Integer> f : takers.invokeAll(loops)) {
        decided += f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
    return decided;
  }

  private int takeBatches(Set<String> served) {
    int decided = 0;
    while (!stopped) {
      TickBatch batch = journal.takeDueTicks(served, BATCH, templates, by);
      decided += batch.decided();
      if (!more(batch)) {
        break;
      }
    }
    return decided;
  }

  /**
   * Whether more ticks may be due after {@code batch}: it was full and decided some. A full batch
   * that decided nothing holds schedules left to other workers (another version): the next poll
   * looks again.
   */
  private static boolean more(TickBatch batch) {
    return batch.held() == BATCH && batch.decided() > 0;
  }

  private static ExecutorService newTakers() {
    return Executors.newFixedThreadPool(
        TAKERS, Thread.ofPlatform().daemon().name("flows-schedule-taker-", 0).factory());
  }

  /**
   * Ticks on a thread of its own every poll until closed; nothing once ticking. A closed ticker
   * starts again once its last thread ended.
   */
  public synchronized void start() {
    if (thread != null && !stopped) {
      return;
    }
    if (thread != null) {
      join(thread);
      if (thread.isAlive()) {
        throw new IllegalStateException("the schedule ticker is still stopping");
      }
    }
    if (stopped) {
      takers = newTakers();
      stopped = false;
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
  public synchronized void close() {
    stopped = true;
    takers.shutdown();
    Thread t = thread;
    if (t != null) {
      t.interrupt();
      join(t);
    }
  }

  private void join(Thread t) {
    try {
      t.join(poll.toMillis() + 5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
