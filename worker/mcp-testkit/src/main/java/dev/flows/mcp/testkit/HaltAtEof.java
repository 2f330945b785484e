package dev.flows.mcp.testkit;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A stdio server's stdin that ends the process when its client goes away: the SDK's stdio servers
 * keep non-daemon threads and do not exit on EOF, so a server whose worker was killed would be left
 * running.
 */
final class HaltAtEof extends FilterInputStream {
  HaltAtEof(InputStream in) {
    super(in);
  }

  @Override
  public int read() throws IOException {
    return ended(super.read());
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    return ended(super.read(b, off, len));
  }

  private static int ended(int n) {
    if (n < 0) {
      Runtime.getRuntime().halt(0);
    }
    return n;
  }
}
