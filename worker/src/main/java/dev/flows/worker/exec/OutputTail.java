package dev.flows.worker.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Drains a stream to its end and keeps only its last {@code cap} bytes, so a chatty command can
 * neither fill a pipe (and block) nor fill memory.
 */
final class OutputTail {
  /** Bytes read per call; only the copy size, unrelated to how much is kept. */
  private static final int READ_CHUNK_BYTES = 8192;

  private final byte[] ring;
  private long total;

  OutputTail(int cap) {
    ring = new byte[cap];
  }

  /** Reads until end of stream; an I/O error ends the drain (the process is gone or going). */
  void drain(InputStream in) {
    byte[] buf = new byte[Math.min(ring.length, READ_CHUNK_BYTES)];
    try (in) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        append(buf, n);
      }
    } catch (IOException e) {
      // The stream closes under us when the process group is killed; what was read is kept.
    }
  }

  private synchronized void append(byte[] buf, int n) {
    for (int i = 0; i < n; i++) {
      ring[(int) (total % ring.length)] = buf[i];
      total++;
    }
  }

  synchronized boolean truncated() {
    return total > ring.length;
  }

  synchronized String text() {
    int kept = (int) Math.min(total, ring.length);
    byte[] out = new byte[kept];
    long start = total - kept;
    for (int i = 0; i < kept; i++) {
      out[i] = ring[(int) ((start + i) % ring.length)];
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
