package dev.flows.ops.chaos;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.migrations.Migrations;
import dev.flows.sdk.config.FlowsConfigLoader;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.LedgerFlows;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.sdk.runtime.TestWorkerMain;
import dev.flows.worker.WorkerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code ops/chaos/run}: a steady mixed load of flows ({@code f.step}, {@code f.mcp} calls and a
 * fan-out of three {@code callAsync} calls to an idempotency-aware server and to one without
 * idempotency keys) on several worker JVMs over a Postgres of its own, while N random faults are
 * injected; then the invariants of {@link ChaosChecks}. Loopback only; every loop is bounded. Exit
 * status: 0 with no violation, 1 with violations, 2 when the harness itself could not run.
 */
public final class ChaosMain {
  /** How long a body waits on a call in memory before it suspends, in the chaos workers. */
  static final Duration SUSPEND_AFTER = Duration.ofMillis(200);

  private static final String DATABASE = "chaos";
  private static final String IDEMPOTENT = "idem";
  private static final String PLAIN = "plain";
  private static final String STDIO_SERVER_CLASS =
      dev.flows.mcp.testkit.StdioTestServer.class.getName();

  /** One in this many runs calls the server without idempotency keys. */
  private static final int PLAIN_EVERY = 4;

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class ChaosNAME implements Flow {
        public FlowHeader header() {
          return FlowHeader.named("chaos-SERVER").version("1").mcp("SERVER").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          long n = f.step("n", () -> input.path("n").asLong()).asLong();
          String a = f.mcp("SERVER").tool("ledger").call(Map.of("call", 1)).text();
          // A durable timer and a signal the load sends right after admission: both must survive
          // every fault (a signal lost or delivered twice shows in the output).
          f.sleep(java.time.Duration.ofMillis(200));
          long go =
              f.awaitSignal("go", java.time.Duration.ofSeconds(120))
                  .map(j -> j.path("n").asLong())
                  .orElse(-1L);
          long sum = 0;
          for (int i = 0; i < 3; i++) {
            final long k = n + i;
            sum += f.step("s" + i, () -> k * 2).asLong();
          }
          // A fan-out: three calls in flight at once, each with its own key and receipt.
          Pending<McpResult> b1 = f.mcp("SERVER").tool("ledger").callAsync(Map.of("call", 2));
          Pending<McpResult> b2 = f.mcp("SERVER").tool("ledger").callAsync(Map.of("call", 3));
          Pending<McpResult> b3 = f.mcp("SERVER").tool("ledger").callAsync(Map.of("call", 4));
          f.all(b1, b2, b3);
          String b = b1.get().text() + "," + b2.get().text() + "," + b3.get().text();
          return JsonNodeFactory.instance
              .objectNode()
              .put("sum", sum)
              .put("a", a)
              .put("b", b)
              .put("go", go);
        }
      }
      """;

  private final ChaosConfig config;
  private final Random random;
  private final LocalPostgres pg;
  private final String url;
  private final List<Process> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
  private final AtomicLong admitted = new AtomicLong();
  private final AtomicLong admissionErrors = new AtomicLong();
  private int unexpectedWorkerExits;
  private int workerSerial;

  private ChaosMain(ChaosConfig config, LocalPostgres pg) {
    this.config = config;
    this.random = new Random(config.seed());
    this.pg = pg;
    this.url = pg.jdbcUrl(DATABASE);
  }

  public static void main(String[] args) throws Exception {
    ChaosConfig config = parse(args);
    System.out.printf(
        "chaos: %d iterations, seed %d, %d workers, lease %d ms, work dir %s%n",
        config.iterations(),
        config.seed(),
        config.workers(),
        config.lease().toMillis(),
        config.workDir());
    int status;
    try (LocalPostgres pg = LocalPostgres.initAndStart(config)) {
      ChaosMain chaos = new ChaosMain(config, pg);
      // Whatever happens to this JVM, no worker (nor its MCP servers) outlives it.
      Runtime.getRuntime().addShutdownHook(new Thread(chaos::killWorkers));
      try {
        status = chaos.run();
      } finally {
        chaos.killWorkers();
      }
    } catch (Exception e) {
      System.out.println("chaos: the harness failed: " + e);
      e.printStackTrace(System.out);
      status = 2;
    }
    System.exit(status);
  }

  static ChaosConfig parse(String[] args) throws IOException {
    ChaosConfig c = ChaosConfig.defaults(Files.createTempDirectory("flows-chaos-"));
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--iterations" -> c = c.withIterations(Integer.parseInt(value));
        case "--seed" -> c = c.withSeed(Long.parseLong(value));
        case "--workers" -> c = c.withWorkers(Integer.parseInt(value));
        default ->
            throw new IllegalArgumentException(
                "usage: ops/chaos/run [--iterations N] [--seed S] [--workers W]; got " + args[i]);
      }
      i++;
    }
    return c;
  }

  private int run() throws Exception {
    long t0 = System.nanoTime();
    prepareDatabase();
    Path flows = Files.createDirectories(config.workDir().resolve("flows"));
    Path idemLedger = flows.resolve("idem.ledger");
    Path plainLedger = flows.resolve("plain.ledger");
    PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
    FlowsEngine admission =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment());
    LoadedFlow idem = flow(flows, IDEMPOTENT, true, idemLedger);
    LoadedFlow plain = flow(flows, PLAIN, false, plainLedger);
    Inventory idemInventory =
        admission.preflight(idem, FlowsConfigLoader.loadNearest(idem.configSearchStart()));
    Inventory plainInventory =
        admission.preflight(plain, FlowsConfigLoader.loadNearest(plain.configSearchStart()));
    for (int i = 0; i < config.workers(); i++) {
      workers.add(startWorker());
    }
    AtomicBoolean loading = new AtomicBoolean(true);
    Thread load =
        Thread.ofPlatform()
            .name("chaos-load")
            .start(
                () ->
                    load(admission, journal, idem, idemInventory, plain, plainInventory, loading));
    List<JournalSnapshot> snapshots = new ArrayList<>();
    Thread.sleep(config.warmUp().toMillis());
    int every = Math.max(1, config.iterations() / config.snapshots());
    for (int i = 1; i <= config.iterations(); i++) {
      long gap =
          config.minFaultGap().toMillis()
              + (long)
                  (random.nextDouble()
                      * (config.maxFaultGap().toMillis() - config.minFaultGap().toMillis()));
      Thread.sleep(gap);
      replaceDeadWorkers();
      Fault f = inject();
      injected.merge(f, 1, Integer::sum);
      if (i % every == 0) {
        snapshot().ifPresent(snapshots::add);
      }
      if (i % 10 == 0 || i == config.iterations()) {
        System.out.printf(
            "  iteration %d/%d: %s; %d runs admitted%n",
            i, config.iterations(), injected, admitted.get());
      }
    }
    loading.set(false);
    load.join();
    long faultsDone = System.nanoTime();
    boolean settled = drain();
    snapshot().ifPresent(snapshots::add);
    stopWorkers();
    admission.close();
    journal.close();
    ChaosChecks checks;
    try (Connection c = DriverManager.getConnection(url)) {
      checks =
          new ChaosChecks(c)
              .runAll(
                  new ChaosChecks.Ledgers(
                      idemLedger,
                      plainLedger,
                      "/mcp/" + IDEMPOTENT + "/ledger",
                      "/mcp/" + PLAIN + "/ledger"),
                  snapshots);
    }
    return report(checks, settled, t0, faultsDone);
  }

  private int report(ChaosChecks checks, boolean settled, long t0, long faultsDone) {
    long end = System.nanoTime();
    int faults = injected.values().stream().mapToInt(Integer::intValue).sum();
    System.out.println("chaos: results");
    System.out.printf("  iterations: %d%n", config.iterations());
    for (Fault f : Fault.values()) {
      System.out.printf("  faults injected, %s: %d%n", f.label(), injected.getOrDefault(f, 0));
    }
    System.out.printf(
        "  runs admitted: %d (admission attempts refused by a fault: %d)%n",
        admitted.get(), admissionErrors.get());
    checks.facts.forEach((k, v) -> System.out.printf("  %s: %d%n", k, v));
    System.out.printf("  workers that exited on their own: %d%n", unexpectedWorkerExits);
    System.out.printf("  settled within the drain: %s%n", settled);
    System.out.printf(
        "  time: %d s under faults, %d s in all%n",
        TimeUnit.NANOSECONDS.toSeconds(faultsDone - t0), TimeUnit.NANOSECONDS.toSeconds(end - t0));
    System.out.printf("  violations: %d%n", checks.violations.size());
    checks.violations.forEach(v -> System.out.println("  VIOLATION " + v));
    long runs = admitted.get();
    long completed = checks.facts.getOrDefault("runs.succeeded", 0L);
    System.out.printf("  runs completed (succeeded): %d%n", completed);
    System.out.printf(
        "chaos: %d faults, %d runs, %d violations%n", faults, runs, checks.violations.size());
    return checks.violations.isEmpty() ? 0 : 1;
  }

  private void prepareDatabase() throws Exception {
    try (Connection c = DriverManager.getConnection(pg.adminUrl());
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + DATABASE);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    Migrations.of(ds).migrate();
    try (Connection c = DriverManager.getConnection(url)) {
      instrument(c);
    }
  }

  /** Installs the chaos instrumentation (instrument.sql) into a migrated flows database. */
  static void instrument(Connection c) throws IOException, SQLException {
    String sql;
    try (InputStream in = ChaosMain.class.getResourceAsStream("instrument.sql")) {
      sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static LoadedFlow flow(Path root, String server, boolean idempotent, Path ledger)
      throws IOException {
    String cls = server.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + server.substring(1);
    return LedgerFlows.write(
        root.resolve(server),
        "chaos-" + server + ".flow.java",
        FLOW.replace("NAME", cls).replace("SERVER", server),
        server,
        idempotent,
        ledger);
  }

  /** Keeps {@link ChaosConfig#inFlight} root runs going until told to stop. */
  private void load(
      FlowsEngine engine,
      PostgresJournal journal,
      LoadedFlow idem,
      Inventory idemInventory,
      LoadedFlow plain,
      Inventory plainInventory,
      AtomicBoolean loading) {
    long next = 0;
    while (loading.get()) {
      try {
        long running = countRunningRoots();
        for (long k = running; k < config.inFlight() && loading.get(); k++) {
          boolean usePlain = next % PLAIN_EVERY == PLAIN_EVERY - 1;
          // A fixed key per run: an admission interrupted by a fault is retried as the same run.
          var started =
              engine.admit(
                  usePlain ? plain : idem,
                  JsonNodeFactory.instance.objectNode().put("n", next),
                  Optional.of(config.seed() + "-" + next),
                  usePlain ? plainInventory : idemInventory);
          // Keyed: a send whose answer a fault lost is sent again with the same key, once.
          journal.sendSignal(
              started.runId(),
              "go",
              JsonNodeFactory.instance.objectNode().put("n", next),
              Optional.of("go-" + next));
          next++;
          admitted.set(next);
        }
      } catch (RuntimeException | SQLException e) {
        admissionErrors.incrementAndGet();
      }
      try {
        Thread.sleep(config.loadPollInterval().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private long countRunningRoots() throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FROM flows.runs WHERE parent_run_id IS NULL AND status = 'running'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private Process startWorker() throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Jvm.java());
    cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m"));
    // Bodies suspend (give their attempt back, replayed later) whenever a call is slow, as it is
    // while a fault lasts: suspension and replay are under test too.
    cmd.add("-Dflows.test.suspendAfterMs=" + SUSPEND_AFTER.toMillis());
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    cmd.add(TestWorkerMain.class.getName());
    cmd.add(url);
    cmd.add(String.valueOf(config.lease().toMillis()));
    Path log = config.workDir().resolve("worker-" + (++workerSerial) + ".log");
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private void replaceDeadWorkers() throws IOException {
    for (int i = 0; i < workers.size(); i++) {
      if (!workers.get(i).isAlive()) {
        unexpectedWorkerExits++;
        System.out.printf(
            "  a worker exited on its own (status %d); replaced%n", workers.get(i).exitValue());
        workers.set(i, startWorker());
      }
    }
  }

  private Fault inject() throws Exception {
    Fault f = Fault.values()[random.nextInt(Fault.values().length)];
    if (f == Fault.MCP_SERVER_SIGKILL) {
      List<ProcessHandle> servers = mcpServers();
      if (servers.isEmpty()) {
        // No worker has a server child at this moment (all just restarted): kill a worker instead.
        f = Fault.WORKER_SIGKILL;
      } else {
        ProcessHandle victim = servers.get(random.nextInt(servers.size()));
        victim.destroyForcibly();
        victim.onExit().get(config.processTimeout().toSeconds(), TimeUnit.SECONDS);
        return f;
      }
    }
    switch (f) {
      case WORKER_SIGKILL -> {
        int i = random.nextInt(workers.size());
        Process victim = workers.get(i);
        victim.destroyForcibly();
        victim.waitFor(config.processTimeout().toSeconds(), TimeUnit.SECONDS);
        workers.set(i, startWorker());
      }
      case TERMINATE_BACKENDS -> {
        try (Connection c = DriverManager.getConnection(pg.adminUrl());
            Statement st = c.createStatement()) {
          st.execute(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                  + " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'");
        }
      }
      case POSTGRES_RESTART -> pg.restart();
      case MCP_SERVER_SIGKILL -> throw new IllegalStateException("handled above");
    }
    return f;
  }

  /** The MCP servers (stdio child JVMs) of the live workers. */
  private List<ProcessHandle> mcpServers() {
    List<ProcessHandle> out = new ArrayList<>();
    for (Process w : workers) {
      w.toHandle().descendants().filter(h -> h.isAlive() && isTestServer(h)).forEach(out::add);
    }
    return out;
  }

  /**
   * Read from /proc: {@link ProcessHandle.Info#commandLine()} comes back empty for command lines as
   * long as a test class path.
   */
  private static boolean isTestServer(ProcessHandle h) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", String.valueOf(h.pid()), "cmdline"));
      return new String(raw, StandardCharsets.UTF_8).contains(STDIO_SERVER_CLASS);
    } catch (IOException e) {
      // Gone between listing and reading.
      return false;
    }
  }

  private Optional<JournalSnapshot> snapshot() {
    long until = System.nanoTime() + config.processTimeout().toNanos();
    while (System.nanoTime() < until) {
      try (Connection c = DriverManager.getConnection(url)) {
        return Optional.of(JournalSnapshot.take(c));
      } catch (SQLException e) {
        sleepQuietly(config.loadPollInterval());
      }
    }
    return Optional.empty();
  }

  /** Waits, bounded, until no run is running: each is terminal or parked. */
  private boolean drain() throws Exception {
    long until = System.nanoTime() + config.drainTimeout().toNanos();
    while (System.nanoTime() < until) {
      replaceDeadWorkers();
      try (Connection c = DriverManager.getConnection(url);
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery("SELECT count(*) FROM flows.runs WHERE status = 'running'")) {
        rs.next();
        if (rs.getLong(1) == 0) {
          return true;
        }
      } catch (SQLException e) {
        // Postgres may still be coming back from the last restart.
      }
      sleepQuietly(Duration.ofSeconds(1));
    }
    return false;
  }

  private void stopWorkers() throws InterruptedException {
    for (Process w : workers) {
      w.destroy();
    }
    for (Process w : workers) {
      if (!w.waitFor(config.processTimeout().toSeconds(), TimeUnit.SECONDS)) {
        w.destroyForcibly();
      }
    }
  }

  private void killWorkers() {
    for (Process w : workers) {
      w.descendants().forEach(ProcessHandle::destroyForcibly);
      w.destroyForcibly();
    }
  }

  private static void sleepQuietly(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
