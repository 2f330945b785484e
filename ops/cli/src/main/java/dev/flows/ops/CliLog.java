package dev.flows.ops;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;

/**
 * Keeps what libraries log off a command's terminal. SLF4J (slf4j-simple, {@code
 * simplelogger.properties}) writes to whatever {@code System.err} is when a line is logged: a
 * command's {@code System.err} becomes {@code $FLOWS_HOME/flows.log} (appended, opened at the first
 * line, so a command that logs nothing creates nothing), and the command itself speaks on the
 * terminal's stderr. So the MCP SDK's warnings (a stdio server that cannot start, notifications it
 * has no handler for) land in the log, not before the command's one-line refusal. A worker's stderr
 * is its log, and {@code --debug} shows everything: both keep {@code System.err}.
 */
final class CliLog {
  static final String FILE = "flows.log";

  private CliLog() {}

  /**
   * Sends {@code System.err} to the log unless the command keeps it; answers the terminal's stderr
   * for the command's own output.
   */
  static PrintStream install(String[] args, Map<String, String> env) {
    PrintStream terminal = System.err;
    if (!keepsStderr(args, env)) {
      Path file =
          new Session(System.out, terminal, env, OpsConfig.defaults(), new GlobalOptions())
              .home()
              .resolve(FILE);
      System.setErr(new PrintStream(new LazyAppend(file, terminal), true, StandardCharsets.UTF_8));
    }
    return terminal;
  }

  static boolean keepsStderr(String[] args, Map<String, String> env) {
    List<String> words = List.of(args);
    if (words.contains("--debug") || "1".equals(env.get(Session.DEBUG_VARIABLE))) {
      return true;
    }
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--db")) {
        i++; // its value
      } else if (!args[i].startsWith("-")) {
        return args[i].equals("worker");
      }
    }
    return false;
  }

  /** Appends to a file opened at the first write; when it cannot be opened, to the fallback. */
  private static final class LazyAppend extends OutputStream {
    private final Path file;
    private final PrintStream fallback;
    private OutputStream target;

    LazyAppend(Path file, PrintStream fallback) {
      this.file = file;
      this.fallback = fallback;
    }

    private synchronized OutputStream target() {
      if (target == null) {
        try {
          Files.createDirectories(file.getParent());
          target =
              Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
          target = fallback;
        }
      }
      return target;
    }

    @Override
    public void write(int b) throws IOException {
      target().write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      target().write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      OutputStream t;
      synchronized (this) {
        t = target;
      }
      if (t != null) {
        t.flush();
      }
    }
  }
}
