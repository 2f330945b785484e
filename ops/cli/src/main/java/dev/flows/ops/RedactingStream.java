package dev.flows.ops;

import dev.flows.kernel.Secrets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What the {@code flows} command prints, masked by {@link Secrets#redact} a line at a time before
 * it reaches the terminal: results, refusals, notices, JSON, and the log lines of the libraries it
 * runs. Whole lines are masked, so a secret is not cut in two by the writes that make up a line.
 */
final class RedactingStream extends OutputStream {
  private final OutputStream target;
  private final List<String> secrets;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();

  private RedactingStream(OutputStream target, List<String> secrets) {
    this.target = target;
    this.secrets = List.copyOf(secrets);
  }

  /** {@code target} behind a filter that masks URL passwords and each of {@code secrets}. */
  static PrintStream wrap(PrintStream target, List<String> secrets) {
    return new PrintStream(new RedactingStream(target, secrets), false, StandardCharsets.UTF_8);
  }

  @Override
  public synchronized void write(int b) throws IOException {
    line.write(b);
    if (b == '\n') {
      emit();
    }
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) throws IOException {
    int start = off;
    for (int i = off; i < off + len; i++) {
      if (b[i] == '\n') {
        line.write(b, start, i + 1 - start);
        emit();
        start = i + 1;
      }
    }
    line.write(b, start, off + len - start);
  }

  private void emit() throws IOException {
    if (line.size() == 0) {
      return;
    }
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    target.write(Secrets.redact(text, secrets).getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public synchronized void flush() throws IOException {
    emit();
    target.flush();
  }

  @Override
  public synchronized void close() throws IOException {
    flush();
  }
}
