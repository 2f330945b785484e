package dev.flows.testing;

import dev.flows.worker.FaultPoint;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

/**
 * The in-process crash of {@link FlowsTestEnvironment#crashWorkerAt}: the worker's fault points
 * call here; the first environment armed at the point reached takes the crash. The thread that
 * reached it stops there (it never answers, as in a dead process) until its environment closes.
 */
final class Crashes {
  /** An environment waiting for its worker to reach {@code point}. */
  record Armed(FaultPoint point, Runnable crash, CountDownLatch closed) {}

  private static final Queue<Armed> ARMED = new ConcurrentLinkedQueue<>();

  static {
    FaultPoint.inProcess(Crashes::reached);
  }

  private Crashes() {}

  static void arm(Armed armed) {
    ARMED.add(armed);
  }

  static void disarm(CountDownLatch closed) {
    ARMED.removeIf(a -> a.closed() == closed);
  }

  private static void reached(FaultPoint point) {
    for (Armed a : ARMED) {
      if (a.point() == point && ARMED.remove(a)) {
        a.crash().run();
        stopHere(a.closed());
        return;
      }
    }
  }

  /** Holds the dead worker's thread until the environment closes, then unwinds it. */
  private static void stopHere(CountDownLatch closed) {
    boolean interrupted = false;
    while (closed.getCount() > 0) {
      try {
        closed.await();
      } catch (InterruptedException e) {
        interrupted = true; // a dead process does not answer its interrupts either
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    throw new SimulatedCrash();
  }

  /** Unwinds a crashed worker's thread once its environment closed; nothing catches it. */
  static final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;

    SimulatedCrash() {
      super("a worker crash simulated by flows-testing", null, false, false);
    }
  }
}
