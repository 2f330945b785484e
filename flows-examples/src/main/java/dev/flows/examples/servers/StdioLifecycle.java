package dev.flows.examples.servers;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Ends a stdio server's process when its input ends. The SDK's stdio server keeps non-daemon
 * threads alive after EOF, so the process would outlive its client; but exiting at once would drop
 * the answers to requests read just before EOF (a client that writes a request and closes, as a
 * shell pipe does), and so would letting the SDK see EOF (it closes its session then). So the real
 * input is pumped to the SDK line by line, requests and answers are matched by id, and at EOF the
 * process exits as soon as every request read has been answered, or when the grace period ends.
 */
public final class StdioLifecycle {
  static final int PIPE_BYTES = 64 * 1024;

  private final Duration grace;
  private final Runnable exit;
  private final Set<String> pending = new HashSet<>();
  private boolean ended;

  /** {@code exit} ends the process (tests pass something milder). */
  public StdioLifecycle(Duration grace, Runnable exit) {
    this.grace = grace;
    this.exit = exit;
  }

  /**
   * What the SDK should read instead of {@code in}: the same messages, fed by a pump thread that
   * owns the real input. Blank lines are dropped (the SDK's reader stops at a line it cannot parse,
   * and would then never see EOF).
   */
  public InputStream watch(InputStream in) {
    PipedInputStream sdkSide = new PipedInputStream(PIPE_BYTES);
    PipedOutputStream pumpSide;
    try {
      pumpSide = new PipedOutputStream(sdkSide);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    LineSplitter lines =
        new LineSplitter(
            line -> {
              read(line);
              try {
                pumpSide.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                pumpSide.flush();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    Thread.ofPlatform()
        .daemon()
        .name("stdio-in")
        .start(
            () -> {
              byte[] buf = new byte[PIPE_BYTES];
              try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  lines.accept(buf, 0, n);
                }
              } catch (IOException | UncheckedIOException e) {
                // Input broken or the SDK gone: the client is gone either way.
              }
              // The pipe stays open: the SDK closes its session at EOF and would drop the answers
              // still being computed.
              drainThenExit();
            });
    return sdkSide;
  }

  public OutputStream watch(OutputStream out) {
    LineSplitter lines = new LineSplitter(this::written);
    return new FilterOutputStream(out) {
      @Override
      public void write(int b) throws IOException {
        out.write(b);
        lines.accept(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] buf, int off, int len) throws IOException {
        out.write(buf, off, len);
        lines.accept(buf, off, len);
      }

      @Override
      public void flush() throws IOException {
        out.flush();
        afterFlush();
      }
    };
  }

  private void read(String line) {
    JsonNode m = parse(line);
    if (m.has("method") && m.has("id")) {
      synchronized (this) {
        pending.add(m.get("id").toString());
      }
    }
  }

  private void written(String line) {
    JsonNode m = parse(line);
    if (!m.has("method") && m.has("id")) {
      synchronized (this) {
        pending.remove(m.get("id").toString());
      }
    }
  }

  private synchronized void afterFlush() {
    if (ended && pending.isEmpty()) {
      notifyAll();
    }
  }

  private void drainThenExit() {
    long deadline = System.nanoTime() + grace.toNanos();
    synchronized (this) {
      ended = true;
      while (!pending.isEmpty()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        try {
          wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    exit.run();
  }

  private static JsonNode parse(String line) {
    try {
      return ToolKit.JSON.readTree(line);
    } catch (IOException e) {
      return ToolKit.JSON.missingNode();
    }
  }

  /** Reassembles newline-delimited messages from arbitrary chunks. */
  private static final class LineSplitter {
    private final Consumer<String> onLine;
    private final ByteArrayOutputStream buf = new ByteArrayOutputStream();

    LineSplitter(Consumer<String> onLine) {
      this.onLine = onLine;
    }

    synchronized void accept(byte[] b, int off, int len) {
      for (int i = off; i < off + len; i++) {
        if (b[i] == '\n') {
          String line = buf.toString(StandardCharsets.UTF_8).strip();
          buf.reset();
          if (!line.isEmpty()) {
            onLine.accept(line);
          }
        } else {
          buf.write(b[i]);
        }
      }
    }
  }
}
