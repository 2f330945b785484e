package dev.flows.sdk.runtime;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.HeldAdmission;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoEffect;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The ordered memo writer of one attempt. A step's memo is handed over and the body goes on ({@link
 * #writeBehind}); a writer thread journals what is pending in batches, every memo handed over
 * meanwhile in the next batch, one {@link Journal#recordConfirmedEffects} call (one transaction)
 * each, and sends batch k+1 only once batch k is acknowledged, so what is journaled is always a
 * prefix of what was handed over. Before anything that depends on the memos, or that another party
 * can see, the body waits at a barrier ({@link #flush}) until every memo handed over is
 * acknowledged. A refused batch stops the writer: nothing handed over after it is written, and the
 * refusal is thrown at the next barrier or hand-over, and at every one after it. A worker that dies
 * loses only memos not yet acknowledged; their steps run again on replay, as a step that died
 * before its memo does.
 */
final class MemoWriter {
  /** The most memos one batch carries: a statement's size stays bounded. */
  static final int MAX_BATCH = 128;

  /**
   * Starts the writers whose first batch's delay passed, one thread for every attempt's writer: a
   * body that ends within the delay (its memos go with its end) starts no writer thread at all.
   */
  private static final ScheduledThreadPoolExecutor DELAYS = delays();

  private static ScheduledThreadPoolExecutor delays() {
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(
            1, Thread.ofPlatform().daemon().name("flows-memo-delays").factory());
    t.setRemoveOnCancelPolicy(true);
    return t;
  }

  /** A memo handed over; {@code answer} is set once its batch is acknowledged. */
  private static final class Pending {
    final MemoEffect memo;
    Optional<EffectElection> answer = Optional.empty();

    Pending(MemoEffect memo) {
      this.memo = memo;
    }
  }

  private final Journal journal;
  private final LeaseToken lease;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition settled = lock.newCondition();
  private final ArrayDeque<Pending> queued = new ArrayDeque<>();
  private final long delayNanos;
  private final ThreadFactory writers;
  // A writer is owed what is queued: its thread started, or its delay pending in DELAYS.
  private boolean writing;
  private boolean writerStarted;
  private Optional<ScheduledFuture<?>> delayed = Optional.empty();
  private boolean sending;
  private boolean hurry;
  private boolean ending;
  private int handedOver;
  private Optional<RuntimeException> refused = Optional.empty();

  MemoWriter(Journal journal, LeaseToken lease, java.time.Duration delay) {
    this(
        journal,
        lease,
        delay,
        Thread.ofVirtual().name("flows-memos-" + lease.runId().value()).factory());
  }

  /** As above, the writer thread made by {@code writers}. */
  MemoWriter(Journal journal, LeaseToken lease, java.time.Duration delay, ThreadFactory writers) {
    this.journal = journal;
    this.lease = lease;
    this.delayNanos = delay.toNanos();
    this.writers = writers;
  }

  /** Hands {@code memo} at {@code surface} to the writer; refused by an earlier refused batch. */
  void writeBehind(String surface, JsonNode memo) {
    handOver(surface, memo);
  }

  /**
   * Journals {@code memo} at {@code surface} after every memo handed over before it, and waits
   * until all are acknowledged: answers what the journal keeps there (a memo confirmed already
   * wins).
   */
  JsonNode writeNow(String surface, JsonNode memo) {
    Pending p = handOver(surface, memo);
    flush();
    EffectElection e = p.answer.orElseThrow();
    return e.deduped() ? e.confirmedOutput().orElse(memo) : memo;
  }

  /**
   * The barrier: waits until every memo handed over is acknowledged; throws the refusal of a
   * refused batch. An interrupt (the lease was lost) ends the wait as a lost attempt.
   */
  void flush() {
    lock.lock();
    try {
      hurry();
      while (refused.isEmpty() && writing) {
        settled.await();
      }
      throwIfRefused();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted();
    } finally {
      lock.unlock();
    }
  }

  private FlowsException interrupted() {
    return new FlowsException(
        ErrorCode.LEASE_CONFLICT,
        "attempt interrupted while its memos were written",
        lease.place(),
        "the journal re-drives the run");
  }

  /**
   * At the end of a body that succeeded: waits for a batch being sent, then answers every memo
   * handed over that was never sent, in order, for the completion to journal; throws the refusal of
   * a refused batch. Nothing may be handed over after it.
   */
  List<MemoEffect> takeUnsent() {
    lock.lock();
    try {
      hurry = true;
      // The writer sends no batch after the one on its way: the completion takes the rest.
      ending = true;
      while (refused.isEmpty() && sending) {
        settled.await();
      }
      throwIfRefused();
      List<MemoEffect> unsent = new ArrayList<>(queued.size());
      queued.forEach(p -> unsent.add(p.memo));
      queued.clear();
      if (writing && !writerStarted) {
        // Its delay had not passed: no writer will run, the completion journals them all.
        delayed.ifPresent(f -> f.cancel(false));
        delayed = Optional.empty();
        writing = false;
      }
      settled.signalAll();
      return unsent;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted();
    } finally {
      lock.unlock();
    }
  }

  /** Ends a first batch's delay (the lock is held). */
  private void hurry() {
    startWriter();
    if (!hurry) {
      hurry = true;
      settled.signalAll();
    }
  }

  private Pending handOver(String surface, JsonNode memo) {
    Pending p = new Pending(new MemoEffect(surface, Optional.of(memo)));
    boolean outgrew;
    lock.lock();
    try {
      outgrew = ++handedOver == HeldAdmission.MOST_MEMOS_WITH_ADMISSION + 1;
      throwIfRefused();
      if (ending) {
        // The completion took the unsent memos already: this one would be journaled by nobody.
        throw new IllegalStateException("a memo at " + surface + " after the body's end");
      }
      queued.addLast(p);
      if (!writing) {
        writing = true;
        writerStarted = false;
        hurry = false;
        if (delayNanos > 0) {
          delayed = Optional.of(DELAYS.schedule(this::delayPassed, delayNanos, NANOSECONDS));
        } else {
          startWriter();
        }
      }
      if (queued.size() >= MAX_BATCH || outgrew) {
        // Past what an admission carries with its end, the memos go at once: a run whose
        // admission is held back is admitted by that batch, and its starter waits no longer.
        hurry();
      }
    } finally {
      lock.unlock();
    }
    return p;
  }

  private void throwIfRefused() {
    if (refused.isPresent()) {
      throw refused.get();
    }
  }

  /** The first batch's delay passed: the writer starts, unless it did or nothing is owed. */
  private void delayPassed() {
    lock.lock();
    try {
      startWriter();
    } finally {
      lock.unlock();
    }
  }

  /** Starts the writer owed what is queued, once (the lock is held). */
  private void startWriter() {
    if (writing && !writerStarted) {
      writerStarted = true;
      delayed.ifPresent(f -> f.cancel(false));
      delayed = Optional.empty();
      writers.newThread(this::drain).start();
    }
  }

  /**
   * The writer thread, started once the first batch's delay passed or it was hurried: one batch at
   * a time until nothing is pending or a batch is refused.
   */
  private void drain() {
    while (true) {
      List<Pending> batch = new ArrayList<>();
      lock.lock();
      try {
        while (!ending && batch.size() < MAX_BATCH && !queued.isEmpty()) {
          batch.add(queued.pollFirst());
        }
        if (batch.isEmpty()) {
          writing = false;
          settled.signalAll();
          return;
        }
        sending = true;
      } finally {
        lock.unlock();
      }
      Optional<RuntimeException> failure = Optional.empty();
      List<EffectElection> answers = List.of();
      try {
        answers = journal.recordConfirmedEffects(lease, batch.stream().map(p -> p.memo).toList());
      } catch (RuntimeException e) {
        failure = Optional.of(e);
      } catch (Error e) {
        failure = Optional.of(new IllegalStateException("writing memos failed", e));
      }
      lock.lock();
      try {
        sending = false;
        settled.signalAll();
        if (failure.isPresent()) {
          refused = failure;
          queued.clear();
          writing = false;
          settled.signalAll();
          return;
        }
        for (int i = 0; i < batch.size(); i++) {
          batch.get(i).answer = Optional.of(answers.get(i));
        }
      } finally {
        lock.unlock();
      }
    }
  }
}
