package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The group commit queue on its own, with a writer that records its batches. */
class GroupCommitTest {
  private static final int CALLERS = 12;

  @Test
  void aLoneCallIsWrittenAtOnceOnTheCallersOwnThread() {
    List<Thread> writers = new CopyOnWriteArrayList<>();
    GroupCommit<Integer, Integer> gc =
        new GroupCommit<>(
            calls -> {
              writers.add(Thread.currentThread());
              return calls.stream().map(c -> c * 10).toList();
            },
            8,
            1);
    assertThat(gc.submit(4)).isEqualTo(40);
    assertThat(gc.submit(5)).isEqualTo(50);
    assertThat(writers).containsExactly(Thread.currentThread(), Thread.currentThread());
  }

  @Test
  void callsMadeWhileAFlushRunsAreWrittenTogetherAndEachGetsItsOwnAnswer() throws Exception {
    CountDownLatch firstFlushEntered = new CountDownLatch(1);
    CountDownLatch releaseFirstFlush = new CountDownLatch(1);
    List<List<Integer>> batches = new CopyOnWriteArrayList<>();
    GroupCommit<Integer, Integer> gc =
        new GroupCommit<>(
            calls -> {
              batches.add(calls);
              if (batches.size() == 1) {
                firstFlushEntered.countDown();
                await(releaseFirstFlush);
              }
              return calls.stream().map(c -> c * 10).toList();
            },
            64,
            1);
    ExecutorService pool = Executors.newFixedThreadPool(CALLERS + 1);
    try {
      Future<Integer> first = pool.submit(() -> gc.submit(0));
      firstFlushEntered.await();
      List<Thread> queued = new CopyOnWriteArrayList<>();
      List<Future<Integer>> rest = new ArrayList<>();
      for (int i = 1; i <= CALLERS; i++) {
        int call = i;
        rest.add(
            pool.submit(
                () -> {
                  queued.add(Thread.currentThread());
                  return gc.submit(call);
                }));
      }
      awaitAllWaiting(queued, CALLERS);
      releaseFirstFlush.countDown();
      assertThat(first.get()).isZero();
      for (int i = 1; i <= CALLERS; i++) {
        assertThat(rest.get(i - 1).get()).isEqualTo(i * 10);
      }
      assertThat(batches).hasSize(2);
      assertThat(batches.get(1)).hasSize(CALLERS);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aBatchThatFailsFailsEachOfItsCallersWithTheSameException() throws Exception {
    CountDownLatch firstFlushEntered = new CountDownLatch(1);
    CountDownLatch releaseFirstFlush = new CountDownLatch(1);
    IllegalStateException fault = new IllegalStateException("connection reset");
    List<List<Integer>> batches = new CopyOnWriteArrayList<>();
    GroupCommit<Integer, Integer> gc =
        new GroupCommit<>(
            calls -> {
              batches.add(calls);
              if (batches.size() == 1) {
                firstFlushEntered.countDown();
                await(releaseFirstFlush);
                return calls;
              }
              throw fault;
            },
            64,
            1);
    ExecutorService pool = Executors.newFixedThreadPool(CALLERS + 1);
    try {
      Future<Integer> first = pool.submit(() -> gc.submit(0));
      firstFlushEntered.await();
      List<Thread> queued = new CopyOnWriteArrayList<>();
      List<Future<Integer>> rest = new ArrayList<>();
      for (int i = 1; i <= CALLERS; i++) {
        int call = i;
        rest.add(
            pool.submit(
                () -> {
                  queued.add(Thread.currentThread());
                  return gc.submit(call);
                }));
      }
      awaitAllWaiting(queued, CALLERS);
      releaseFirstFlush.countDown();
      assertThat(first.get()).isZero();
      for (Future<Integer> f : rest) {
        assertThatThrownBy(f::get).hasCauseReference(fault);
      }
      // The queue is not stuck after a failed batch.
      assertThatThrownBy(() -> gc.submit(99)).isSameAs(fault);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anInterruptedCallerStillWritesItsBatchAndKeepsItsInterrupt() {
    List<Boolean> interruptedWhileWriting = new CopyOnWriteArrayList<>();
    GroupCommit<Integer, Integer> gc =
        new GroupCommit<>(
            calls -> {
              interruptedWhileWriting.add(Thread.currentThread().isInterrupted());
              return calls;
            },
            8,
            1);
    Thread.currentThread().interrupt();
    try {
      assertThat(gc.submit(7)).isEqualTo(7);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(interruptedWhileWriting).containsExactly(false);
  }

  /** Until every queued caller thread is parked waiting for its turn in the queue. */
  static void awaitAllWaiting(List<Thread> threads, int expected) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      if (threads.size() == expected && threads.stream().allMatch(GroupCommitTest::queued)) {
        return;
      }
      Thread.sleep(5);
    }
    throw new AssertionError("callers did not all queue: " + threads);
  }

  /** Parked on its turn (not, say, briefly on the queue's lock). */
  private static boolean queued(Thread t) {
    return t.getState() == Thread.State.WAITING
        && java.util.Arrays.stream(t.getStackTrace())
            .anyMatch(f -> f.getClassName().startsWith(CompletableFuture.class.getName()));
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
