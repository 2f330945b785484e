package dev.flows.worker.pg;

import dev.flows.worker.WorkerMain;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A worker in a child JVM ({@link WorkerMain}), on the test's own classpath and java binary. */
final class ChildWorker implements AutoCloseable {
  private final Process process;
  private final Path log;

  private ChildWorker(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static ChildWorker start(String jdbcUrl, Map<String, String> workerProperties)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    workerProperties.forEach((k, v) -> cmd.add("-Dflows.worker." + k + "=" + v));
    cmd.add(WorkerMain.class.getName());
    cmd.add(jdbcUrl);
    Path log = Files.createTempFile("flows-child-worker", ".log");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    return new ChildWorker(p, log);
  }

  Process process() {
    return process;
  }

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
