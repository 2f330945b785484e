package dev.flows.mcp.testkit;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A stdio server's stdin that appends every complete line it passes on to a file, so a test can see
 * exactly what a client sent (requests, their {@code _meta}, cancel notifications).
 */
final class LineLog extends FilterInputStream {
  private final Path file;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();

  LineLog(InputStream in, Path file) {
    super(in);
    this.file = file;
  }

  @Override
  public int read() throws IOException {
    int c = super.read();
    if (c >= 0) {
      seen(new byte[] {(byte) c}, 0, 1);
    }
    return c;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = super.read(b, off, len);
    if (n > 0) {
      seen(b, off, n);
    }
    return n;
  }

  private synchronized void seen(byte[] b, int off, int n) throws IOException {
    for (int i = off; i < off + n; i++) {
      line.write(b[i]);
      if (b[i] == '\n') {
        Files.writeString(
            file,
            line.toString(StandardCharsets.UTF_8),
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
        line.reset();
      }
    }
  }
}
