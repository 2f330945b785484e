package dev.flows.mcp.testkit;

import java.io.IOException;

/**
 * What a test server does to be hard to stop: ignore SIGTERM (flag {@code --ignore-sigterm}, which
 * also keeps it running past stdin's end) and leave a process behind (tool {@code
 * spawn_grandchild}, a {@code sleep} that outlives it), for the client's reaping to be tested on
 * every revision's server.
 */
final class Deafness {
  static final String FLAG = "--ignore-sigterm";

  private Deafness() {}

  /** True when {@code flags} ask for a deaf server, which then ignores SIGTERM from now on. */
  static boolean ignoreSigtermIf(java.util.List<String> flags) {
    boolean deaf = flags.contains(FLAG);
    if (deaf) {
      sun.misc.Signal.handle(new sun.misc.Signal("TERM"), s -> {});
    }
    return deaf;
  }

  /** Starts a process that outlives this server and answers its pid. */
  static String spawnGrandchild() throws IOException {
    Process p =
        new ProcessBuilder("/bin/sleep", "600")
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    return String.valueOf(p.pid());
  }
}
