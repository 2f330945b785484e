package dev.flows.journalstore;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit: concurrent calls are written together, one transaction for many callers. A call
 * made while fewer than {@code maxInFlight} flushes run is flushed at once on the caller's own
 * thread (no hand-off, so a lone caller waits for nothing but its own statement); a call made while
 * they all run waits in a queue, and the next flush to finish takes up to {@code maxBatch} queued
 * calls as the next batch and hands it to the first of them to write. Every caller is answered with
 * its own call's result; a batch that fails fails each of its callers with the same exception.
 *
 * @param <C> one call
 * @param <R> the answer to one call
 */
final class GroupCommit<C, R> {
  /** Writes a batch in one transaction and answers one result per call, in order. */
  @FunctionalInterface
  interface Writer<C, R> {
    List<R> write(List<C> calls);
  }

  /**
   * How a queued call ends its wait: answered, failed with its batch, or asked to write a batch.
   */
  private sealed interface Turn<C, R> {
    record Answered<C, R>(R result) implements Turn<C, R> {}

    record BatchFailed<C, R>(RuntimeException failure) implements Turn<C, R> {}

    record Write<C, R>(List<Waiter<C, R>> batch) implements Turn<C, R> {}
  }

  private static final class Waiter<C, R> {
    final C call;
    final CompletableFuture<Turn<C, R>> turn = new CompletableFuture<>();

    Waiter(C call) {
      this.call = call;
    }
  }

  private final Writer<C, R> writer;
  private final int maxBatch;
  private final int maxInFlight;
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Waiter<C, R>> queue = new ArrayDeque<>();
  private int inFlight;

  GroupCommit(Writer<C, R> writer, int maxBatch, int maxInFlight) {
    if (maxBatch < 1 || maxInFlight < 1) {
      throw new IllegalArgumentException("maxBatch and maxInFlight must be >= 1");
    }
    this.writer = writer;
    this.maxBatch = maxBatch;
    this.maxInFlight = maxInFlight;
  }

  /** Writes {@code call} (with whatever else is queued) and answers its result. */
  R submit(C call) {
    Waiter<C, R> me = new Waiter<>(call);
    List<Waiter<C, R>> batch;
    lock.lock();
    try {
      if (inFlight < maxInFlight) {
        inFlight++;
        batch = takeBatch(me);
      } else {
        queue.addLast(me);
        batch = null;
      }
    } finally {
      lock.unlock();
    }
    if (batch == null) {
      // Not interruptible on purpose: a caller promoted to write a batch owes it to the others.
      switch (me.turn.join()) {
        case Turn.Answered<C, R> a -> {
          return a.result();
        }
        case Turn.BatchFailed<C, R> f -> throw f.failure();
        case Turn.Write<C, R> w -> batch = w.batch();
      }
    }
    return writeAndHandOn(me, batch);
  }

  /** Under the lock: {@code first} and up to {@code maxBatch - 1} queued calls, oldest first. */
  private List<Waiter<C, R>> takeBatch(Waiter<C, R> first) {
    List<Waiter<C, R>> batch = new ArrayList<>(Math.min(maxBatch, queue.size() + 1));
    batch.add(first);
    while (batch.size() < maxBatch && !queue.isEmpty()) {
      batch.add(queue.pollFirst());
    }
    return batch;
  }

  private R writeAndHandOn(Waiter<C, R> me, List<Waiter<C, R>> batch) {
    R mine = null;
    RuntimeException failure = null;
    // An interrupt aimed at this caller's own work must not fail the other callers' writes (a
    // pooled connection is refused to an interrupted thread): keep it for after the write.
    boolean interrupted = Thread.interrupted();
    try {
      List<C> calls = new ArrayList<>(batch.size());
      for (Waiter<C, R> w : batch) {
        calls.add(w.call);
      }
      List<R> results = writer.write(calls);
      if (results.size() != batch.size()) {
        throw new IllegalStateException(
            "group commit answered " + results.size() + " results for " + batch.size() + " calls");
      }
      for (int i = 0; i < batch.size(); i++) {
        Waiter<C, R> w = batch.get(i);
        if (w == me) {
          mine = results.get(i);
        } else {
          w.turn.complete(new Turn.Answered<>(results.get(i)));
        }
      }
    } catch (RuntimeException | Error e) {
      failure =
          e instanceof RuntimeException r ? r : new IllegalStateException("group commit failed", e);
      for (Waiter<C, R> w : batch) {
        if (w != me) {
          w.turn.complete(new Turn.BatchFailed<>(failure));
        }
      }
      if (e instanceof Error error) {
        throw error;
      }
    } finally {
      handOn();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (failure != null) {
      throw failure;
    }
    return mine;
  }

  /** A flush ended: what queued meanwhile becomes the next batch, written by its oldest caller. */
  private void handOn() {
    Waiter<C, R> next;
    List<Waiter<C, R>> batch;
    lock.lock();
    try {
      if (queue.isEmpty()) {
        inFlight--;
        return;
      }
      next = queue.pollFirst();
      batch = takeBatch(next);
    } finally {
      lock.unlock();
    }
    next.turn.complete(new Turn.Write<>(batch));
  }
}
