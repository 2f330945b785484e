package dev.flows.ops;

import dev.flows.worker.WorkerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * How {@code flows worker} stops: SIGTERM or SIGINT asks it to, and the command itself drains (not
 * a shutdown hook, which would end the JVM with 143 and could not bound its own wait), within
 * {@link #bound}, then exits 0. A signal before {@link #install} (while it starts) ends the JVM at
 * once, as any JVM: nothing is claimed yet.
 */
final class WorkerStop implements AutoCloseable {
  /** Beyond the attempts' own bounds: to release leases, remove the worker's row, and exit. */
  static final Duration MARGIN = Duration.ofSeconds(5);

  private static final List<String> SIGNALS = List.of("TERM", "INT");

  private final CountDownLatch requested = new CountDownLatch(1);
  private final List<Signal> signals = new ArrayList<>();
  private final List<SignalHandler> previous = new ArrayList<>();

  private WorkerStop() {}

  /** Replaces the JVM's handlers of SIGTERM and SIGINT until {@link #close}. */
  static WorkerStop install() {
    WorkerStop stop = new WorkerStop();
    for (String name : SIGNALS) {
      Signal signal = new Signal(name);
      stop.previous.add(Signal.handle(signal, s -> stop.requested.countDown()));
      stop.signals.add(signal);
    }
    return stop;
  }

  /**
   * The longest a drain takes: running attempts finish within the stop grace, the rest are canceled
   * (their processes killed within the kill grace) and complete within the completion timeout, then
   * {@link #MARGIN}.
   */
  static Duration bound(WorkerConfig config) {
    return config
        .stopGrace()
        .plus(config.killGrace())
        .plus(config.stopCompletionTimeout())
        .plus(MARGIN);
  }

  /** Waits for a signal (or for the calling thread to be interrupted). */
  void await() throws InterruptedException {
    requested.await();
  }

  /**
   * Runs {@code drain} on its own thread and waits for it at most {@code bound}; answers whether it
   * finished. A drain that outlives it (a database that does not answer) is left to the JVM's exit:
   * the leases it still holds expire by themselves.
   */
  static boolean drainWithin(Duration bound, Runnable drain) throws InterruptedException {
    Thread t = Thread.ofPlatform().name("flows-worker-drain").daemon().start(drain);
    t.join(bound);
    return !t.isAlive();
  }

  /** Gives SIGTERM and SIGINT back to the handlers they had (an in-process caller's). */
  @Override
  public void close() {
    for (int i = 0; i < signals.size(); i++) {
      Signal.handle(signals.get(i), previous.get(i));
    }
  }
}
