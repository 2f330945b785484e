package dev.flows.worker;

import dev.flows.kernel.journal.WorkerId;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

/** This process's worker id, {@code host/pid/random}: one per process, made once. */
final class ProcessWorkerId {
  /** This machine's host name, as the worker id and the worker's roster row name it. */
  static final String HOST = host();

  /** Unique per process, and says where to look when an attempt hangs. */
  static final WorkerId ID = make();

  private ProcessWorkerId() {}

  private static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown-host";
    }
  }

  private static WorkerId make() {
    return new WorkerId(
        HOST
            + "/"
            + ProcessHandle.current().pid()
            + "/"
            + UUID.randomUUID().toString().substring(0, 8));
  }
}
