package dev.flows.mcp.client;

/**
 * Three instants of a {@code tools/call} on its way through this client, for a stage breakdown of a
 * call (the bench's {@code mcpstages}): the request handed to the wire, a response read off it, and
 * the call's result handed to its caller. Off unless a {@link Probe} is installed: each point is
 * then one volatile read, no clock read and no allocation.
 *
 * <p>The points are the same on both revisions and transports, so their stages compare: {@code
 * sent} when the request's bytes are written (2025 stdio: after the flush; 2025 HTTP: before the
 * POST; 2026-07-28: when the SDK's transport is given the request, before it encodes it), {@code
 * answered} when a JSON-RPC response was read and parsed as a message, {@code delivered} when the
 * session turned it into the call's result.
 */
public final class McpWireTimings {
  /** What receives the instants ({@link System#nanoTime()}); called on the client's threads. */
  public interface Probe {
    void sent(long nanos);

    void answered(long nanos);

    void delivered(long nanos);
  }

  private static final Probe OFF =
      new Probe() {
        @Override
        public void sent(long nanos) {}

        @Override
        public void answered(long nanos) {}

        @Override
        public void delivered(long nanos) {}
      };

  private static volatile Probe probe = OFF;

  private McpWireTimings() {}

  /** Sends every call's instants to {@code p} from now on (one probe per JVM). */
  public static void install(Probe p) {
    probe = p;
  }

  /** Stops timing. */
  public static void uninstall() {
    probe = OFF;
  }

  /** Whether a probe is installed: for a point that would allocate to be timed. */
  static boolean on() {
    return probe != OFF;
  }

  static void sent() {
    Probe p = probe;
    if (p != OFF) {
      p.sent(System.nanoTime());
    }
  }

  static void answered() {
    Probe p = probe;
    if (p != OFF) {
      p.answered(System.nanoTime());
    }
  }

  static void delivered() {
    Probe p = probe;
    if (p != OFF) {
      p.delivered(System.nanoTime());
    }
  }
}
