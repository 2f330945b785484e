package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoEffect;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
  private boolean writing;
  private Optional<RuntimeException> refused = Optional.empty();

  MemoWriter(Journal journal, LeaseToken lease) {
    this.journal = journal;
    this.lease = lease;
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
      while (refused.isEmpty() && writing) {
        settled.await();
      }
      throwIfRefused();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlowsException(
          ErrorCode.LEASE_CONFLICT,
          "attempt interrupted while its memos were written",
          lease.place(),
          "the journal re-drives the run");
    } finally {
      lock.unlock();
    }
  }

  private Pending handOver(String surface, JsonNode memo) {
    Pending p = new Pending(new MemoEffect(surface, Optional.of(memo)));
    lock.lock();
    try {
      throwIfRefused();
      queued.addLast(p);
      if (!writing) {
        writing = true;
        Thread.ofVirtual().name("flows-memos-" + lease.runId().value()).start(this::drain);
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

  /** The writer thread: one batch at a time until nothing is pending or a batch is refused. */
  private void drain() {
    while (true) {
      List<Pending> batch = new ArrayList<>();
      lock.lock();
      try {
        while (batch.size() < MAX_BATCH && !queued.isEmpty()) {
          batch.add(queued.pollFirst());
        }
        if (batch.isEmpty()) {
          writing = false;
          settled.signalAll();
          return;
        }
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
