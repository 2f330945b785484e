package dev.flows.mcp.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Lines of a server's stream, each counted while it is read: a line longer than the limit is not
 * kept but read on to its end (so the stream stays in step), and only its head and tail are kept,
 * which is where a JSON-RPC message names its id. Memory per reader stays near the limit whatever
 * the server sends.
 */
final class BoundedLines {
  /** How much of the start and of the end of an oversized line is kept. */
  static final int KEPT_BYTES = 4096;

  private static final int CHUNK = 64 * 1024;

  /** One line of the stream. */
  sealed interface Line {
    /** A line within the limit, without its line break. */
    record Text(String text) implements Line {}

    /** A line past the limit: its first and last bytes, and how long it was. */
    record Oversized(String head, String tail, long bytes) implements Line {}
  }

  private final InputStream in;
  private final int maxBytes;
  private final byte[] buf = new byte[CHUNK];
  private int pos;
  private int end;

  BoundedLines(InputStream in, int maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
  }

  /** The next line, or empty at the end of the stream (a last line without a break included). */
  Optional<Line> next() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    byte[] head = null;
    byte[] tail = new byte[0];
    long length = 0;
    while (true) {
      if (pos == end && !fill()) {
        if (length == 0) {
          return Optional.empty();
        }
        return Optional.of(done(line, head, tail, length));
      }
      int nl = indexOfNewline();
      int stop = nl < 0 ? end : nl;
      int n = stop - pos;
      length += n;
      if (head == null && length <= maxBytes) {
        line.write(buf, pos, n);
      } else {
        if (head == null) {
          line.write(buf, pos, n);
          byte[] all = line.toByteArray();
          head = Arrays.copyOf(all, Math.min(KEPT_BYTES, all.length));
          tail = lastBytes(new byte[0], all, 0, all.length);
          line = new ByteArrayOutputStream();
        } else {
          tail = lastBytes(tail, buf, pos, n);
        }
      }
      pos = nl < 0 ? end : nl + 1;
      if (nl >= 0) {
        return Optional.of(done(line, head, tail, length));
      }
    }
  }

  private static Line done(ByteArrayOutputStream line, byte[] head, byte[] tail, long length) {
    if (head == null) {
      String s = line.toString(StandardCharsets.UTF_8);
      return new Line.Text(s.endsWith("\r") ? s.substring(0, s.length() - 1) : s);
    }
    return new Line.Oversized(
        new String(head, StandardCharsets.UTF_8), new String(tail, StandardCharsets.UTF_8), length);
  }

  /** The last {@link #KEPT_BYTES} of {@code kept} followed by {@code b[off, off+n)}. */
  private static byte[] lastBytes(byte[] kept, byte[] b, int off, int n) {
    if (n >= KEPT_BYTES) {
      return Arrays.copyOfRange(b, off + n - KEPT_BYTES, off + n);
    }
    int fromKept = Math.min(kept.length, KEPT_BYTES - n);
    byte[] out = new byte[fromKept + n];
    System.arraycopy(kept, kept.length - fromKept, out, 0, fromKept);
    System.arraycopy(b, off, out, fromKept, n);
    return out;
  }

  private int indexOfNewline() {
    for (int i = pos; i < end; i++) {
      if (buf[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  private boolean fill() throws IOException {
    int n = in.read(buf, 0, buf.length);
    if (n <= 0) {
      return false;
    }
    pos = 0;
    end = n;
    return true;
  }
}
