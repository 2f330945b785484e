package dev.flows.ops;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Stops a process a test started and every process under it: a launcher script's JVM, a step's
 * command, a server it spawned. Taken before the signal, the list of descendants still names those
 * that the stopped process left behind (orphans are no longer its descendants).
 */
final class ProcessTree {
  /** How long a process may take to stop on SIGTERM before it is killed. */
  static final Duration PATIENCE = Duration.ofSeconds(60);

  private static final Duration LEFT_PATIENCE = Duration.ofSeconds(10);

  private ProcessTree() {}

  /** SIGTERM, then SIGKILL past {@link #PATIENCE}; the same for what it leaves; its exit code. */
  static int stop(Process p) throws InterruptedException {
    List<ProcessHandle> under = p.descendants().toList();
    p.destroy();
    if (!p.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      p.waitFor();
    }
    end(under);
    return p.exitValue();
  }

  /** SIGKILL to the process and to everything under it (a crash, as a test simulates it). */
  static void kill(Process p) throws InterruptedException {
    List<ProcessHandle> under = p.descendants().toList();
    p.destroyForcibly();
    p.waitFor();
    under.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle h : under) {
      h.onExit().join();
    }
  }

  /** SIGTERM to each of {@code left} still alive, SIGKILL to those alive after a while. */
  static void end(List<ProcessHandle> left) {
    left.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
    long until = System.nanoTime() + LEFT_PATIENCE.toNanos();
    for (ProcessHandle h : left) {
      long wait = Math.max(0, until - System.nanoTime());
      try {
        h.onExit().get(wait, TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        h.destroyForcibly();
      }
    }
  }

  /** How a process shows in a failure message: its pid and command line. */
  static String describe(ProcessHandle h) {
    return h.pid() + " " + h.info().commandLine().orElse(h.info().command().orElse("?"));
  }
}
