package dev.flows.worker;

import dev.flows.kernel.journal.WorkerId;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

/** This process's worker id, {@code host/pid/random}: one per process, made once. */
final class ProcessWorkerId {
  /** Unique per process, and says where to look when an attempt hangs. */
  static final WorkerId ID = make();

  private ProcessWorkerId() {}

  private static WorkerId make() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "unknown-host";
    }
    return new WorkerId(
        host
            + "/"
            + ProcessHandle.current().pid()
            + "/"
            + UUID.randomUUID().toString().substring(0, 8));
  }
}
