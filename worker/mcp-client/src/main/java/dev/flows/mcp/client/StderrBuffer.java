package dev.flows.mcp.client;

import java.nio.charset.StandardCharsets;

/** The newest {@code capacity} bytes of a server's stderr: enough to explain a crash, bounded. */
final class StderrBuffer {
  private final byte[] ring;
  private long written;

  StderrBuffer(int capacity) {
    this.ring = new byte[Math.max(1, capacity)];
  }

  synchronized void append(byte[] b, int off, int len) {
    for (int i = 0; i < len; i++) {
      ring[(int) (written++ % ring.length)] = b[off + i];
    }
  }

  /** Total bytes ever seen (may exceed what is kept). */
  synchronized long written() {
    return written;
  }

  synchronized String tail() {
    int kept = (int) Math.min(written, ring.length);
    byte[] out = new byte[kept];
    long start = written - kept;
    for (int i = 0; i < kept; i++) {
      out[i] = ring[(int) ((start + i) % ring.length)];
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
