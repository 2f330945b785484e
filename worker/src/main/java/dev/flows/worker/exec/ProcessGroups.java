package dev.flows.worker.exec;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;

/**
 * Signals a whole process group with the system {@code kill}, which accepts a negative pid: the JDK
 * can signal one process but not a group, and a step's grandchildren must not outlive it.
 */
final class ProcessGroups {
  private ProcessGroups() {}

  /**
   * Sends {@code signal} (e.g. {@code TERM}) to every process in group {@code pgid}. An empty group
   * is not an error. Runs to the end even if the calling thread is interrupted (cleanup must not be
   * skipped); the interrupt is restored afterwards.
   */
  static void signal(long pgid, String signal) {
    boolean interrupted = Thread.interrupted();
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + signal, "--", "-" + pgid)
              .redirectOutput(Redirect.DISCARD)
              .redirectError(Redirect.DISCARD)
              .start();
      while (true) {
        try {
          kill.waitFor();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill to signal process group " + pgid, e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
