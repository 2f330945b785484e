package dev.flows.ops;

import dev.flows.mcp.testkit.NoProcessLeftBehind;
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

  private ProcessTree() {}

  /** SIGTERM, then SIGKILL past {@link #PATIENCE}; the same for what it leaves; its exit code. */
  static int stop(Process p) throws InterruptedException {
    List<ProcessHandle> under = p.descendants().toList();
    p.destroy();
    if (!p.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      p.waitFor();
    }
    NoProcessLeftBehind.end(under);
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
}
