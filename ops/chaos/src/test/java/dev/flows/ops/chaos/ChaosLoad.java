package dev.flows.ops.chaos;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.TaskTestServer;
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
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The load every fault harness runs under (the chaos suite and the HA drill): a steady mix of flows
 * ({@code f.step}, {@code f.mcp} calls and a fan-out of three {@code callAsync} calls to an
 * idempotency-aware server and to one without idempotency keys, a durable timer and a signal; and a
 * call made as a task of a few seconds on a task server; agent runs, {@link ChaosAgents}; a secret
 * argument in every run of the mix, {@link ChaosSecrets}) on several worker JVMs over one database
 * URL; then the drain, and the invariants of {@link ChaosChecks}. The harness decides what faults
 * to inject meanwhile.
 */
final class ChaosLoad {
  /** How long a body waits on a call in memory before it suspends, in the chaos workers. */
  static final Duration SUSPEND_AFTER = Duration.ofMillis(200);

  private static final String IDEMPOTENT = "idem";
  private static final String PLAIN = "plain";
  private static final String STDIO_SERVER_CLASS =
      dev.flows.mcp.testkit.StdioTestServer.class.getName();

  /** One in this many runs calls the server without idempotency keys; one other is an agent. */
  private static final int PLAIN_EVERY = 4;

  /** The run of every {@link #PLAIN_EVERY} that is an agent run ({@link ChaosAgents}). */
  private static final int AGENT_SLOT = 1;

  /**
   * Task runs kept in flight besides {@link ChaosConfig#inFlight} runs of the mix: a fault that
   * kills a task's owner then finds a task working, whatever the mix is doing.
   */
  private static final int TASKS_IN_FLIGHT = 3;

  private static final String TASKS = "jobs";

  /**
   * One {@code slow} call made as a task (required, so a call never runs as a plain one): the
   * server's task works {@code ms} and completes with {@code slow done after MS ms}. A task's
   * length differs from run to run, so a result handed to the wrong run shows in its output.
   */
  static final String TASK_FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class ChaosTask implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("chaos-task").version("1").mcp("SERVER").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          long ms = input.path("ms").asLong();
          String said = f.mcp("SERVER").tool("slow").call(Map.of("ms", ms)).text();
          return JsonNodeFactory.instance
              .objectNode()
              .put("task", input.path("task").asLong())
              .put("said", said);
        }
      }
      """
          .replace("SERVER", TASKS);

  /** The length of run {@code n}'s task: 2 to 4 s, so a kill finds tasks in flight. */
  static long taskMs(long n) {
    return 2_000 + (n % 11) * 200;
  }

  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class ChaosNAME implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("chaos-SERVER").version("1").mcp("SERVER").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          long n = f.step("n", () -> input.path("n").asLong()).asLong();
          String a = f.mcp("SERVER").tool("ledger").call(Map.of("call", 1)).text();
          // A card number of this run's: journaled only sealed, opened only to make the call (a
          // re-send after a crash included); the server echoes what it received.
          String card = System.getProperty("flows.chaos.card") + "-" + n;
          boolean echoed =
              f.mcp("SERVER")
                  .tool("echo")
                  .secret("/text")
                  .secretResult("/content/0/text")
                  .call(Map.of("text", card))
                  .text()
                  .equals(card);
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
              .put("go", go)
              .put("card", echoed);
        }
      }
      """;

  /** Extra invariants a harness checks besides {@link ChaosChecks#runAll}. */
  @FunctionalInterface
  interface MoreChecks {
    void run(ChaosChecks checks) throws SQLException;
  }

  /** What the load ended with: the checks, whether the drain settled, when the faults ended. */
  record Outcome(ChaosChecks checks, boolean settled, long faultsDoneNanos, long endNanos) {}

  private final ChaosConfig config;
  private final String url;
  private final List<Process> workers = new CopyOnWriteArrayList<>();
  private final java.util.Map<Process, Path> workerLogs =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.Set<String> tasksHit = new java.util.HashSet<>();
  private final AtomicLong admitted = new AtomicLong();
  private final AtomicLong admissionErrors = new AtomicLong();
  private final AtomicBoolean loading = new AtomicBoolean(true);
  private int unexpectedWorkerExits;
  private int workerSerial;
  private Path idemLedger;
  private Path plainLedger;
  private Path taskEvents;
  private TaskTestServer taskServer;
  private ChaosAgents agents;
  private final ChaosSecrets secrets = new ChaosSecrets();
  private PostgresJournal journal;
  private FlowsEngine admission;
  private Thread load;

  /** A load on {@code url}: the workers, the admissions and the checks all connect through it. */
  ChaosLoad(ChaosConfig config, String url) {
    this.config = config;
    this.url = url;
  }

  /** Migrates a (created, empty) flows database and installs the chaos instrumentation. */
  static void prepareDatabase(String url) throws IOException, SQLException {
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
    try (InputStream in = ChaosLoad.class.getResourceAsStream("instrument.sql")) {
      sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /** Writes the flows, starts the workers and the load thread. */
  void start() throws Exception {
    Path flows = Files.createDirectories(config.workDir().resolve("flows"));
    idemLedger = flows.resolve("idem.ledger");
    plainLedger = flows.resolve("plain.ledger");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
    admission =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment());
    LoadedFlow idem = flow(flows, IDEMPOTENT, true, idemLedger);
    LoadedFlow plain = flow(flows, PLAIN, false, plainLedger);
    LoadedFlow task = taskFlow(flows.resolve(TASKS));
    agents = ChaosAgents.start(flows.resolve("agent"), idemLedger);
    List<Admittable> mix =
        List.of(
            new Admittable(idem, preflight(idem)),
            new Admittable(plain, preflight(plain)),
            new Admittable(task, preflight(task)),
            new Admittable(agents.flow(), preflight(agents.flow())));
    for (int i = 0; i < config.workers(); i++) {
      workers.add(startWorker());
    }
    load = Thread.ofPlatform().name("chaos-load").start(() -> load(mix));
  }

  /** A flow and the inventory its preflight gave, ready for admission. */
  private record Admittable(LoadedFlow flow, Inventory inventory) {}

  /**
   * The task server: one process for every worker (Streamable HTTP, 2026-07-28, in this JVM), so a
   * task one worker's call created is known to the worker that polls it next; tasks kept in a file
   * and every call and task operation logged to {@link #taskEvents}. The server is declared without
   * idempotency keys: flows must then never send a call twice, whatever a fault cuts short (an
   * outcome it cannot know parks instead).
   */
  private LoadedFlow taskFlow(Path dir) throws Exception {
    Files.createDirectories(dir);
    taskEvents = dir.resolve("events.jsonl");
    taskServer = TaskTestServer.http(dir.resolve("tasks.json"), taskEvents);
    Files.writeString(dir.resolve("chaos-task.flow.java"), TASK_FLOW);
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\""
            + TASKS
            + "\": {\"url\": \""
            + taskServer.url()
            + "\", \"protocol\": \"2026-07-28\", \"tasks\": \"required\"}}}");
    return LoadedFlow.load(dir.resolve("chaos-task.flow.java").toString(), dir);
  }

  /**
   * The flow's preflight, tried a few times: a test server JVM starting on a loaded machine can
   * miss the handshake deadline once.
   */
  private Inventory preflight(LoadedFlow flow) {
    RuntimeException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return admission.preflight(flow, FlowsConfigLoader.loadNearest(flow.configSearchStart()));
      } catch (RuntimeException e) {
        last = e;
      }
    }
    throw last;
  }

  long admitted() {
    return admitted.get();
  }

  /**
   * Stops admitting, waits (bounded) for the runs to settle, takes the last snapshot, stops the
   * workers and checks every invariant over {@code snapshots} and what {@code more} adds.
   */
  Outcome finish(List<JournalSnapshot> snapshots, MoreChecks more) throws Exception {
    loading.set(false);
    load.join();
    long faultsDone = System.nanoTime();
    boolean settled = drain();
    snapshot().ifPresent(snapshots::add);
    stopWorkers();
    admission.close();
    journal.close();
    taskServer.close();
    ChaosChecks checks;
    try (Connection c = DriverManager.getConnection(url)) {
      checks =
          new ChaosChecks(c)
              .runAll(
                  new ChaosChecks.Ledgers(
                      idemLedger,
                      plainLedger,
                      "/mcp/" + IDEMPOTENT + "/ledger",
                      "/mcp/" + PLAIN + "/ledger",
                      taskEvents),
                  snapshots);
      agents.check(c, checks, idemLedger);
      secrets.check(c, checks, workerLogs.values());
      more.run(checks);
    } finally {
      agents.close();
    }
    return new Outcome(checks, settled, faultsDone, System.nanoTime());
  }

  /** The lines every harness prints about the load and the checks, before its own last line. */
  void printOutcome(Outcome o, long t0) {
    System.out.printf(
        "  runs admitted: %d (admission attempts refused by a fault: %d)%n",
        admitted.get(), admissionErrors.get());
    o.checks().facts.forEach((k, v) -> System.out.printf("  %s: %d%n", k, v));
    System.out.printf("  workers that exited on their own: %d%n", unexpectedWorkerExits);
    System.out.printf("  settled within the drain: %s%n", o.settled());
    System.out.printf(
        "  time: %d s under faults, %d s in all%n",
        TimeUnit.NANOSECONDS.toSeconds(o.faultsDoneNanos() - t0),
        TimeUnit.NANOSECONDS.toSeconds(o.endNanos() - t0));
    System.out.printf("  violations: %d%n", o.checks().violations.size());
    o.checks().violations.forEach(v -> System.out.println("  VIOLATION " + v));
    System.out.printf(
        "  runs completed (succeeded): %d%n", o.checks().facts.getOrDefault("runs.succeeded", 0L));
  }

  private static LoadedFlow flow(Path root, String server, boolean idempotent, Path ledger)
      throws IOException {
    String cls = server.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + server.substring(1);
    Path dir = root.resolve(server);
    String file = "chaos-" + server + ".flow.java";
    LedgerFlows.write(
        dir, file, FLOW.replace("NAME", cls).replace("SERVER", server), server, idempotent, ledger);
    ChaosSecrets.declareKey(dir);
    return LoadedFlow.load(dir.resolve(file).toString(), dir);
  }

  /**
   * Keeps {@link ChaosConfig#inFlight} root runs of the idempotent and plain flows and {@link
   * #TASKS_IN_FLIGHT} of the task flow going until told to stop; {@code mix} is those three.
   */
  private void load(List<Admittable> mix) {
    long next = 0;
    while (loading.get()) {
      try {
        long[] running = countRunningRoots();
        for (long k = running[0]; k < config.inFlight() && loading.get(); k++) {
          long slot = next % PLAIN_EVERY;
          if (slot == AGENT_SLOT) {
            admission.admit(
                mix.get(3).flow(),
                JsonNodeFactory.instance.objectNode().put(ChaosAgents.INPUT_KEY, next),
                Optional.of(config.seed() + "-" + next),
                mix.get(3).inventory());
            admitted.set(++next);
            continue;
          }
          Admittable a = mix.get(slot == PLAIN_EVERY - 1 ? 1 : 0);
          // A fixed key per run: an admission interrupted by a fault is retried as the same run.
          var started =
              admission.admit(
                  a.flow(),
                  JsonNodeFactory.instance.objectNode().put("n", next),
                  Optional.of(config.seed() + "-" + next),
                  a.inventory());
          // Keyed: a send whose answer a fault lost is sent again with the same key, once.
          journal.sendSignal(
              started.runId(),
              "go",
              JsonNodeFactory.instance.objectNode().put("n", next),
              Optional.of("go-" + next));
          admitted.set(++next);
        }
        for (long k = running[1]; k < TASKS_IN_FLIGHT && loading.get(); k++) {
          admission.admit(
              mix.get(2).flow(),
              JsonNodeFactory.instance.objectNode().put("task", next).put("ms", taskMs(next)),
              Optional.of(config.seed() + "-" + next),
              mix.get(2).inventory());
          admitted.set(++next);
        }
      } catch (RuntimeException | SQLException e) {
        admissionErrors.incrementAndGet();
      }
      sleepQuietly(config.loadPollInterval());
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
    }
  }

  /** The running root runs: of the mix, and of the task flow. */
  private long[] countRunningRoots() throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT count(*) FILTER (WHERE NOT spec->'steps'->0->'input' ? 'task'),"
                    + " count(*) FILTER (WHERE spec->'steps'->0->'input' ? 'task')"
                    + " FROM flows.runs WHERE parent_run_id IS NULL AND status = 'running'")) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2)};
    }
  }

  private Process startWorker() throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Jvm.java());
    cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m"));
    // Bodies suspend (give their attempt back, replayed later) whenever a call is slow, as it is
    // while a fault lasts: suspension and replay are under test too.
    cmd.add("-Dflows.test.suspendAfterMs=" + SUSPEND_AFTER.toMillis());
    cmd.add(agents.workerFlag());
    cmd.add(secrets.workerFlag());
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    cmd.add(TestWorkerMain.class.getName());
    cmd.add(url);
    cmd.add(String.valueOf(config.lease().toMillis()));
    Path log = config.workDir().resolve("worker-" + (++workerSerial) + ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put(ChaosSecrets.KEY_VAR, secrets.key());
    Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    workerLogs.put(p, log);
    return p;
  }

  /**
   * Waits, bounded by {@code within}, until at least {@code ready} workers have said they are ready
   * (a log holding TestWorkerMain's {@code worker ready}); answers whether they did. A fault that
   * kills the worker owning a task paces itself by this, so kills never outrun the replacements and
   * the task's next attempt has a live worker to take it.
   */
  boolean awaitWorkersReady(int ready, Duration within) throws IOException {
    long until = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < until) {
      replaceDeadWorkers();
      int n = 0;
      for (Process w : workers) {
        Path log = workerLogs.get(w);
        n += Files.exists(log) && Files.readString(log).contains("worker ready") ? 1 : 0;
      }
      if (n >= ready) {
        return true;
      }
      sleepQuietly(Duration.ofMillis(100));
    }
    return false;
  }

  /** The tasks whose owner a fault killed, each once. */
  java.util.Set<String> tasksHit() {
    return java.util.Set.copyOf(tasksHit);
  }

  void replaceDeadWorkers() throws IOException {
    for (int i = 0; i < workers.size(); i++) {
      if (!workers.get(i).isAlive()) {
        unexpectedWorkerExits++;
        System.out.printf(
            "  a worker exited on its own (status %d); replaced%n", workers.get(i).exitValue());
        workers.set(i, startWorker());
      }
    }
  }

  int workerCount() {
    return workers.size();
  }

  /** SIGKILLs worker {@code i} and starts another in its place. */
  void killWorker(int i) throws IOException, InterruptedException {
    Process victim = workers.get(i);
    victim.destroyForcibly();
    victim.waitFor(config.processTimeout().toSeconds(), TimeUnit.SECONDS);
    workers.set(i, startWorker());
  }

  /** A worker to kill: its index, the task it owns and whether an attempt of the call is open. */
  record TaskOwner(int worker, String taskId, boolean open) {}

  /**
   * A live worker that owns a task-backed call in flight (task journaled {@code working}, its run
   * running, not hit before), read from {@code flows.mcp_tasks}: the worker holding the call's open
   * attempt when there is one (waiting up to {@code preferOpen} for one to show), else the worker
   * of the latest attempt of the newest task's call (most often the worker that just created it);
   * waits at most {@code within} for any. Empty when none showed. The task answered is counted as
   * hit: each task is hit once, so the call's retries are never spent by this fault alone.
   */
  Optional<TaskOwner> taskOwner(Duration within, Duration preferOpen) throws InterruptedException {
    long start = System.nanoTime();
    while (System.nanoTime() - start < within.toNanos()) {
      List<TaskOwner> found =
          taskOwners().stream().filter(o -> !tasksHit.contains(o.taskId())).toList();
      Optional<TaskOwner> pick = found.stream().filter(TaskOwner::open).findFirst();
      if (pick.isEmpty() && !found.isEmpty() && System.nanoTime() - start >= preferOpen.toNanos()) {
        pick = Optional.of(found.getFirst());
      }
      if (pick.isPresent()) {
        tasksHit.add(pick.get().taskId());
        return pick;
      }
      Thread.sleep(50);
    }
    return Optional.empty();
  }

  private List<TaskOwner> taskOwners() {
    List<TaskOwner> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT t.task_id, s.status = 'running', coalesce(s.worker_id,"
                    + " (SELECT a.payload->>'workerId' FROM flows.journal_entries a"
                    + " WHERE a.run_id = t.run_id AND a.step_id = t.step_id"
                    + " AND a.entry_type = 'step.attempt.started' ORDER BY a.seq DESC LIMIT 1))"
                    + " FROM flows.mcp_tasks t JOIN flows.steps s"
                    + " ON s.run_id = t.run_id AND s.step_id = t.step_id"
                    + " WHERE t.status = 'working' AND t.run_status = 'running'"
                    + " ORDER BY t.created_at DESC")) {
      while (rs.next()) {
        // A worker id is host/pid/random.
        String[] id = String.valueOf(rs.getString(3)).split("/");
        for (int i = 0; i < workers.size() && id.length == 3; i++) {
          Process w = workers.get(i);
          if (w.isAlive() && String.valueOf(w.pid()).equals(id[1])) {
            out.add(new TaskOwner(i, rs.getString(1), rs.getBoolean(2)));
          }
        }
      }
    } catch (SQLException e) {
      // Read again on the next pass.
    }
    return out;
  }

  /** The MCP servers (stdio child JVMs) of the live workers. */
  List<ProcessHandle> mcpServers() {
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

  Optional<JournalSnapshot> snapshot() {
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
        // The database may still be coming back from the last fault.
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

  /** Kills every worker and its MCP servers: no process of the load outlives the harness. */
  void killWorkers() {
    for (Process w : workers) {
      w.descendants().forEach(ProcessHandle::destroyForcibly);
      w.destroyForcibly();
    }
  }

  static void sleepQuietly(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
