package dev.flows.sdk.runtime;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.FaultPoint;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;
import java.util.Optional;

/**
 * A worker process for crash tests: serves flows, MCP calls and commands from the journal at {@code
 * args[0]} with a lease of {@code args[1]} ms until killed. Fault points are armed by the parent
 * with {@code -Dflows.fault}.
 */
public final class TestWorkerMain {
  /**
   * The lease crash tests give their workers: as long as a real worker's, so an attempt is never
   * fenced out by a busy machine. The take-over of a killed worker's attempts is forced with {@link
   * ExpiredLeases}, not waited for.
   */
  static final Duration LEASE = WorkerConfig.DEFAULT_LEASE;

  private TestWorkerMain() {}

  /**
   * Starts this worker as a JVM of its own on {@code jdbcUrl}, dying at {@code fault} (after {@code
   * skip} passes) when given; its output goes to a temporary log file.
   */
  static Process launch(
      String jdbcUrl, Duration lease, java.util.Optional<FaultPoint> fault, int skip)
      throws java.io.IOException {
    return launch(jdbcUrl, lease, fault, skip, java.util.List.of());
  }

  /** As above, with {@code jvmFlags} (e.g. {@code -Dflows.test.tickFlow=true}). */
  static Process launch(
      String jdbcUrl,
      Duration lease,
      java.util.Optional<FaultPoint> fault,
      int skip,
      java.util.List<String> jvmFlags)
      throws java.io.IOException {
    return launch(jdbcUrl, lease, fault, skip, jvmFlags, java.util.Map.of());
  }

  /** As above, with {@code env} added to the worker's environment. */
  static Process launch(
      String jdbcUrl,
      Duration lease,
      java.util.Optional<FaultPoint> fault,
      int skip,
      java.util.List<String> jvmFlags,
      java.util.Map<String, String> env)
      throws java.io.IOException {
    java.util.List<String> cmd = new java.util.ArrayList<>();
    cmd.add(Jvm.java());
    cmd.addAll(jvmFlags);
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("-XX:+UseSerialGC");
    fault.ifPresent(f -> cmd.add("-Dflows.fault=" + f.wire()));
    cmd.add("-Dflows.fault.skip=" + skip);
    cmd.addAll(java.util.List.of("-cp", System.getProperty("java.class.path")));
    cmd.add(TestWorkerMain.class.getName());
    cmd.add(jdbcUrl);
    cmd.add(String.valueOf(lease.toMillis()));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    return pb.redirectErrorStream(true)
        .redirectOutput(java.io.File.createTempFile("worker", ".log"))
        .start();
  }

  public static void main(String[] args) throws Exception {
    Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
    PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(args[0]));
    FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder()
                .defaultLease(lease)
                .pollInterval(Duration.ofMillis(100))
                .reconcileInterval(Duration.ofMillis(300))
                .stopGrace(Duration.ofSeconds(1))
                .build(),
            // -Dflows.test.suspendAfterMs: bodies give their attempt back sooner (chaos makes them
            // suspend and replay under faults).
            Optional.ofNullable(Long.getLong("flows.test.suspendAfterMs"))
                .map(
                    ms ->
                        SdkConfig.DEFAULTS.toBuilder().suspendAfter(Duration.ofMillis(ms)).build())
                .orElse(SdkConfig.DEFAULTS),
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment());
    // The harness admits its flows from another process: this worker runs any journal source.
    engine.acceptJournalSources();
    // -Dflows.test.modelsFrom=DIR: this worker calls the models DIR's flows.json declares.
    Optional.ofNullable(System.getProperty("flows.test.modelsFrom"))
        .map(java.nio.file.Path::of)
        .map(dev.flows.sdk.config.FlowsConfigLoader::loadNearest)
        .ifPresent(c -> c.models().values().forEach(engine.models()::declare));
    // -Dflows.test.tickFlow: this worker has TickFlow, whose header starts it every second.
    if (Boolean.getBoolean("flows.test.tickFlow")) {
      engine.register(new TickFlow());
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  engine.close();
                  journal.close();
                }));
    engine.startWorker();
    System.out.println("worker ready");
    System.out.flush();
    Thread.currentThread().join();
  }
}
