package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code ./flows} launcher as a user would, with its own FLOWS_HOME, no database
 * configured and no rebuild (integration tests run after {@code package}).
 */
final class Launcher {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long TIMEOUT_SECONDS = 300;

  private final Path home;
  private final Map<String, String> env;

  Launcher(Path home) {
    this(home, Map.of());
  }

  private Launcher(Path home, Map<String, String> env) {
    this.home = home;
    this.env = env;
  }

  /** This launcher with one more environment variable set for the commands it starts. */
  Launcher with(String variable, String value) {
    Map<String, String> more = new HashMap<>(env);
    more.put(variable, value);
    return new Launcher(home, Map.copyOf(more));
  }

  /** What one command printed and how it exited. */
  record Ran(int exit, String out, String err) {
    JsonNode json() throws IOException {
      return JSON.readTree(out);
    }

    List<String> errLines() {
      return err.lines().filter(l -> !l.isBlank()).toList();
    }
  }

  private ProcessBuilder builder(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(repoRoot().resolve("flows").toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put(Session.HOME_VARIABLE, home.toString());
    pb.environment().put("FLOWS_SKIP_BUILD", "1");
    pb.environment().remove(DatabaseTarget.URL_VARIABLE);
    pb.environment().remove(Session.DEBUG_VARIABLE);
    pb.environment().putAll(env);
    return pb;
  }

  /** Runs a command to its end. */
  Ran run(String... args) throws Exception {
    ProcessBuilder pb = builder(args);
    Path out = Files.createTempFile("flows-it", ".out");
    Path err = Files.createTempFile("flows-it", ".err");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      ProcessTree.kill(p);
      throw new AssertionError("flows " + String.join(" ", args) + " did not end");
    }
    Ran r =
        new Ran(
            p.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    Files.delete(out);
    Files.delete(err);
    return r;
  }

  /** Starts a long-running command (a worker), its output going to a log file. */
  Process start(String... args) throws IOException {
    return start(Files.createTempFile("flows-worker", ".log"), args);
  }

  /** Starts a long-running command, its stdout and stderr going to {@code log}. */
  Process start(Path log, String... args) throws IOException {
    ProcessBuilder pb = builder(args);
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    return pb.start();
  }

  static Path repoRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isExecutable(dir.resolve("flows"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no ./flows above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
