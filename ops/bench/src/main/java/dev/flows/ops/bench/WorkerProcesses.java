package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.WorkerProcesses.worker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.mcp.testkit.Jvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Worker JVMs of their own ({@link BenchWorkerMain}) for the sections that kill, count or measure a
 * worker process, and what /proc and the worker's log tell of one.
 */
final class WorkerProcesses {
  /** The JVM options `flows worker` starts with (a java @argfile, see the `flows` launcher). */
  static final Path WORKER_JVM_OPTIONS = Path.of("ops", "worker.jvmopts").toAbsolutePath();

  /**
   * JVM options of the waiting worker: {@code FLOWS_BENCH_WORKER_JVM} (split on spaces) when set,
   * else those `flows worker` starts with ({@link #WORKER_JVM_OPTIONS}), so the RSS reported is
   * what a worker deployed with the launcher shows.
   */
  static final List<String> WAITING_WORKER_JVM =
      Optional.ofNullable(System.getenv("FLOWS_BENCH_WORKER_JVM"))
          .map(v -> List.of(v.trim().split("\\s+")))
          .orElse(List.of("@" + WORKER_JVM_OPTIONS));

  private WorkerProcesses() {}

  static Process worker(String url, Duration lease, int capacity, Path log, List<String> jvm)
      throws Exception {
    return worker(url, lease, capacity, log, jvm, List.of());
  }

  static Process worker(
      String url, Duration lease, int capacity, Path log, List<String> jvm, List<String> more)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Jvm.java());
    cmd.addAll(jvm);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    cmd.add(BenchWorkerMain.class.getName());
    cmd.add(url);
    cmd.add(String.valueOf(lease.toMillis()));
    cmd.add(String.valueOf(capacity));
    cmd.addAll(more);
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /**
   * Many worker JVMs starting at once on a few cores shared with other builds are slow to be ready:
   * the wait ends when the worker says so, this only bounds a worker that never will.
   */
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

  static void awaitReady(Process p, Path log) throws Exception {
    long until = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < until) {
      if (Files.exists(log) && Files.readString(log).contains("worker ready")) {
        return;
      }
      if (!p.isAlive()) {
        throw new IllegalStateException("worker exited: " + Files.readString(log));
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("worker not ready: " + Files.readString(log));
  }

  static long rssBytes(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }

  /** The number of threads of process {@code pid}. */
  static long threads(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("Threads:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no Threads for " + pid);
  }

  /** The platform and virtual threads of a JVM, as its thread dump lists them. */
  record Threads(long platform, long virtual) {
    /** Counts the threads of a {@code jcmd PID Thread.dump_to_file -format=json} dump. */
    static Threads of(JsonNode dump) {
      long platform = 0;
      long virtual = 0;
      for (JsonNode container : dump.path("threadDump").path("threadContainers")) {
        for (JsonNode t : container.path("threads")) {
          if (t.path("virtual").asBoolean(false)) {
            virtual++;
          } else {
            platform++;
          }
        }
      }
      return new Threads(platform, virtual);
    }
  }

  /**
   * The threads of JVM {@code pid}, virtual ones included ({@code jdk.trackAllThreads} is on by
   * default, so every virtual thread started is in the dump).
   */
  static Threads threadDump(long pid) throws Exception {
    return whole(
        DUMP_ATTEMPTS,
        () -> {
          Path file = Files.createTempFile("bench-threads", ".json");
          Files.delete(file);
          try {
            jcmd(pid, "Thread.dump_to_file", "-format=json", file.toString());
            return Threads.of(new ObjectMapper().readTree(file.toFile()));
          } finally {
            Files.deleteIfExists(file);
          }
        });
  }

  /**
   * Dumps taken before giving up on a JVM's threads. A dump has come back cut short (the file
   * ending inside a string, with 250 tasks in flight), which ended the whole bench run: a count is
   * worth another dump, not the other sections' figures.
   */
  static final int DUMP_ATTEMPTS = 3;

  /** What {@code read} answers from the first of {@code attempts} reads that parses whole. */
  static <T> T whole(int attempts, Callable<T> read) throws Exception {
    JsonProcessingException last = null;
    for (int i = 0; i < attempts; i++) {
      try {
        return read.call();
      } catch (JsonProcessingException cutShort) {
        last = cutShort;
        log("  a thread dump did not parse (" + cutShort.getOriginalMessage() + "); again");
      }
    }
    throw last;
  }

  /**
   * The worker's heap after a full GC (the live set), from the line it prints once a second after
   * the collection; -1 when unknown.
   */
  static long liveHeap(long pid, Path log) throws Exception {
    jcmd(pid, "GC.run");
    Thread.sleep(2_500);
    return heapUsed(log);
  }

  private static void jcmd(long pid, String... command) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    cmd.add(String.valueOf(pid));
    cmd.addAll(List.of(command));
    new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start()
        .waitFor(60, TimeUnit.SECONDS);
  }

  static long heapUsed(Path log) throws Exception {
    long last = -1;
    for (String line : Files.readAllLines(log)) {
      if (line.startsWith("heap used=")) {
        last = Long.parseLong(line.substring("heap used=".length(), line.indexOf(' ', 10)));
      }
    }
    return last;
  }
}
