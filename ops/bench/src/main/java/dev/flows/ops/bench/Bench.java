package dev.flows.ops.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.spec.StepKind;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.mcp.testkit.JettyMcpServer;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.sdk.Flow;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.Lowering;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.ExecutorRegistry;
import dev.flows.worker.ResilientJournal;
import dev.flows.worker.StepExecutor;
import dev.flows.worker.Worker;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The benchmark: {@code ops/bench/run [--quick|--smoke] --url JDBC_URL [--out FILE]}. Measures this
 * Postgres's own limits first, then the engine on the same server, and writes a Markdown report
 * with each target as a ratio against that baseline.
 */
public final class Bench {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration BARE_CALL_TIMEOUT = Duration.ofSeconds(5);

  /** How often {@link #awaitEnded} reads the runs' status when nothing woke it. */
  private static final Duration END_POLL = Duration.ofMillis(20);

  /** Bare calls refused or unanswered within {@link #BARE_CALL_TIMEOUT}, over the whole run. */
  static final LongAdder LOST_BARE_CALLS = new LongAdder();

  /**
   * Sizes of one run: {@code full} about ten minutes, {@code quick} about three, {@code smoke} (the
   * unit test) seconds, without the sections that start worker JVMs.
   */
  record Plan(
      String mode,
      List<Integer> concurrencies,
      double baselineSeconds,
      int stepsPerFlow,
      int noopRuns,
      int mcpCallsPerFlow,
      int mcpWarmupCalls,
      double bareSeconds,
      int commitSteps,
      int commitCalls,
      int dispatchSamples,
      List<Duration> recoveryLeases,
      int recoverySamples,
      int waitingRuns,
      double waitingWindowSeconds,
      List<Integer> workerProcesses,
      int scalingSteps,
      long pruneEntries,
      int pruneWindowSeconds) {
    /** How long each measured workload first runs unmeasured (JIT warm-up). */
    double warmupSeconds() {
      return switch (mode) {
        case "smoke" -> 0;
        case "quick" -> 3;
        default -> 6;
      };
    }

    static Plan of(String mode) {
      return switch (mode) {
        case "smoke" ->
            new Plan(
                mode,
                List.of(1),
                0.3,
                3,
                5,
                1,
                2,
                0.3,
                5,
                1,
                2,
                List.of(),
                0,
                0,
                0,
                List.of(),
                0,
                0,
                0);
        case "quick" ->
            new Plan(
                mode,
                List.of(1, 4, 16),
                2,
                100,
                100,
                20,
                100,
                2,
                300,
                100,
                30,
                List.of(Duration.ofSeconds(2), DEFAULT_LEASE),
                1,
                1000,
                10,
                List.of(1, 2, 4),
                100,
                200_000,
                5);
        default ->
            new Plan(
                "full",
                List.of(1, 4, 16),
                6,
                500,
                400,
                50,
                300,
                5,
                1000,
                300,
                100,
                List.of(Duration.ofSeconds(2), DEFAULT_LEASE),
                3,
                10_000,
                20,
                List.of(1, 2, 4),
                500,
                1_000_000,
                15);
      };
    }
  }

  private final Plan plan;
  private final Pg pg;
  private final Report report = new Report();

  /** Section names for {@code --only}; the baseline always runs (every ratio needs it). */
  static final List<String> SECTIONS =
      List.of(
          "steps",
          "floor",
          "children",
          "mcp",
          "latency",
          "commits",
          "recovery",
          "waiting",
          "sleepers",
          "scaling",
          "prune");

  private final java.util.Set<String> only;

  Bench(Plan plan, Pg pg) {
    this(plan, pg, java.util.Set.of());
  }

  Bench(Plan plan, Pg pg, java.util.Set<String> only) {
    this.plan = plan;
    this.pg = pg;
    this.only = only;
  }

  private boolean runs(String section) {
    return only.isEmpty() || only.contains(section);
  }

  public static void main(String[] args) throws Exception {
    String mode = "full";
    String url = System.getenv("FLOWS_BENCH_URL");
    Path out = Path.of("ops/bench/RESULTS.md");
    java.util.Set<String> only = java.util.Set.of();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> mode = "quick";
        case "--smoke" -> mode = "smoke";
        case "--url" -> url = args[++i];
        case "--out" -> out = Path.of(args[++i]);
        case "--only" -> only = java.util.Set.of(args[++i].split(","));
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (url == null) {
      throw new IllegalArgumentException("give --url JDBC_URL (or FLOWS_BENCH_URL)");
    }
    if (!only.isEmpty() && !SECTIONS.containsAll(only)) {
      throw new IllegalArgumentException("--only takes some of " + SECTIONS + ", got " + only);
    }
    if (!only.isEmpty() && out.equals(Path.of("ops/bench/RESULTS.md"))) {
      // A partial run must not overwrite the full report.
      out = Path.of("ops/bench/target/PARTIAL.md");
      Files.createDirectories(out.getParent());
    }
    // Exit explicitly either way: the MCP SDK's HTTP session sweeper is not a daemon thread.
    try {
      Files.writeString(out, new Bench(Plan.of(mode), new Pg(url), only).run());
      System.out.println("wrote " + out.toAbsolutePath());
    } catch (Exception | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  /** Runs every section and answers the report. */
  String run() throws Exception {
    long began = System.nanoTime();
    report.environment(plan.mode(), pg.settings());
    baseline();
    if (runs("steps")) {
      steps();
    }
    if (runs("floor")) {
      journalFloor();
    }
    if (runs("children")) {
      deterministicChildren();
    }
    if (runs("mcp")) {
      mcp();
    }
    if (runs("latency")) {
      dispatchLatency();
    }
    if (runs("commits")) {
      commitsPerCall();
    }
    if (runs("recovery")) {
      recovery();
    }
    if (runs("waiting")) {
      waitingRuns();
    }
    if (runs("sleepers")) {
      sleepers();
    }
    if (runs("scaling")) {
      scaling();
    }
    if (runs("prune") && plan.pruneEntries() > 0) {
      log("retention: claims without and while pruning " + plan.pruneEntries() + " entries");
      PruneBench.Result r =
          PruneBench.measure(
              pg, plan.pruneEntries(), Duration.ofSeconds(plan.pruneWindowSeconds()));
      report.prune(r);
      log("  claim p99 " + r.without().p99() + " ms without, " + r.during().p99() + " ms during");
    }
    report.runtime(Duration.ofNanos(System.nanoTime() - began));
    return report.markdown(plan);
  }

  /** How often a worker renews one lease: a third of what remains (WorkerConfig.renewalDivisor). */
  static double renewalPeriodSeconds() {
    return DEFAULT_LEASE.toMillis() / 1000.0 / WorkerConfig.DEFAULT_RENEWAL_DIVISOR;
  }

  private static void log(String s) {
    System.out.println(Instant.now() + " " + s);
    System.out.flush();
  }

  // ---------------------------------------------------------------- baseline

  private void baseline() throws Exception {
    log("baseline");
    String url = pg.fresh("bench_baseline", false);
    for (int c : plan.concurrencies()) {
      Baseline.prepare(url, 20_000 + (int) (plan.baselineSeconds() * 15_000));
      Baseline.Result ins = Baseline.inserts(url, c, plan.baselineSeconds());
      Baseline.Result claim = Baseline.claims(url, c, plan.baselineSeconds());
      report.baseline(c, ins, claim);
      log("  c=" + c + " insert " + (int) ins.perSecond() + "/s claim " + (int) claim.perSecond());
    }
    pg.drop("bench_baseline");
  }

  // ---------------------------------------------------------------- engine throughput

  private ObjectNode stepsInput(String id, int n) {
    return JSON.objectNode().put("id", id).put("n", n);
  }

  /** Measured rounds of each f.step concurrency; the report gives their median. */
  static final int STEP_ROUNDS = 3;

  private void steps() throws Exception {
    log("f.step throughput");
    report.stepsPerFlow(plan.stepsPerFlow());
    String url = pg.fresh("bench_steps", true);
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      for (int c : plan.concurrencies()) {
        try (FlowsEngine engine = Engines.engine(journal, c, DEFAULT_LEASE)) {
          engine.startWorker();
          int n = c == 1 ? plan.stepsPerFlow() * 4 : plan.stepsPerFlow();
          // Warm-up: the measured workload, unmeasured, until the JIT has had time to compile
          // the path (a handful of calls measures the interpreter, not the engine).
          warmUp(() -> admitAndWait(url, engine, BenchFlows.STEPS, c, i -> stepsInput("w", n)));
          double rate = medianStepRate(url, engine, c, n, "m", "  c=" + c);
          report.steps(c, rate);
        }
      }
    }
    pg.drop("bench_steps");
  }

  /**
   * Admits {@code flows} f.step flows of {@code n} steps through {@code admitter}, {@link
   * #STEP_ROUNDS} times, and answers the median steps/s: one round is a fraction of a second to a
   * few seconds on a shared machine.
   */
  private double medianStepRate(
      String url, FlowsEngine admitter, int flows, int n, String prefix, String label)
      throws Exception {
    List<Double> rates = new ArrayList<>();
    for (int r = 0; r < STEP_ROUNDS; r++) {
      String round = prefix + r + "-";
      double secs =
          admitAndWait(url, admitter, BenchFlows.STEPS, flows, i -> stepsInput(round + i, n));
      rates.add(flows * n / secs);
    }
    double rate = rates.stream().sorted().toList().get(STEP_ROUNDS / 2);
    log(label + " " + (int) rate + " steps/s (rounds " + rates + ")");
    return rate;
  }

  // ---------------------------------------------------------------- the journal alone

  /**
   * The engine's journal writes made without the engine (see {@link JournalFloor}): what the f.step
   * and f.mcp targets would measure if the engine around the journal cost nothing.
   */
  private void journalFloor() throws Exception {
    log("journal floor (the engine's writes without the engine)");
    String url = pg.fresh("bench_floor", true);
    double warm = Math.min(1.0, plan.warmupSeconds());
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      for (int c : plan.concurrencies()) {
        JournalFloor.memoStatements(url, journal, c, warm);
        Baseline.Result statement =
            JournalFloor.memoStatements(url, journal, c, plan.baselineSeconds());
        JournalFloor.memoVerbs(journal, c, warm);
        Baseline.Result verb = JournalFloor.memoVerbs(journal, c, plan.baselineSeconds());
        report.memoFloor(c, statement, verb);
        log(
            "  c="
                + c
                + " memo statement "
                + (int) statement.perSecond()
                + "/s, recordConfirmedEffect "
                + (int) verb.perSecond()
                + "/s");
      }
      JournalFloor.durableCallStatements(journal, warm);
      Baseline.Result calls = JournalFloor.durableCallStatements(journal, plan.baselineSeconds());
      report.callFloor(calls);
      log(
          "  durable call's two statements p50 "
              + String.format(java.util.Locale.ROOT, "%.2f", calls.latency().p50())
              + " ms");
    }
    pg.drop("bench_floor");
  }

  /** One unmeasured round of a workload. */
  @FunctionalInterface
  interface Round {
    void run() throws Exception;
  }

  /** Repeats {@code round} (at least once) until the plan's warm-up time has passed. */
  private void warmUp(Round round) throws Exception {
    warmUp(plan.warmupSeconds(), round);
  }

  private static void warmUp(double seconds, Round round) throws Exception {
    long until = System.nanoTime() + (long) (seconds * 1e9);
    do {
      round.run();
    } while (System.nanoTime() < until);
  }

  /** Admits {@code count} runs of {@code flow} at once and answers seconds until all ended. */
  private double admitAndWait(
      String url,
      FlowsEngine engine,
      Flow flow,
      int count,
      java.util.function.IntFunction<ObjectNode> input)
      throws Exception {
    return admitAndWait(url, engine, flow, count, input, Inventory.empty());
  }

  private double admitAndWait(
      String url,
      FlowsEngine engine,
      Flow flow,
      int count,
      java.util.function.IntFunction<ObjectNode> input,
      Inventory inventory)
      throws Exception {
    long t0 = System.nanoTime();
    List<RunId> runs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      runs.add(
          engine.admit(Engines.loaded(flow), input.apply(i), Optional.empty(), inventory).runId());
    }
    awaitEnded(url, runs, Optional.of(engine.journal()));
    return (System.nanoTime() - t0) / 1e9;
  }

  /**
   * Polls (every {@link #END_POLL}, on its own connection) until every run has ended; fails unless
   * all succeeded. Answers how many polling transactions it made, so commit counts can leave them
   * out.
   */
  static long awaitEnded(String url, List<RunId> runs) throws Exception {
    return awaitEnded(url, runs, Optional.empty());
  }

  /**
   * As {@link #awaitEnded(String, List)}, woken between polls by {@code watchVia}'s run watches (at
   * once when the run ended through that journal instance, else by its NOTIFY), so a timed window
   * ends when its last run does, not up to a poll interval later: a poll every 20 ms added 10 ms on
   * average to windows of 50-100 ms. The poll interval stays the fallback.
   */
  static long awaitEnded(String url, List<RunId> runs, Optional<Journal> watchVia)
      throws Exception {
    long polls = 0;
    long until = System.nanoTime() + RUN_TIMEOUT.toNanos();
    // Opened before the first read, so no end after that read goes unseen.
    List<RunWatch> watches = new ArrayList<>();
    watchVia.ifPresent(j -> runs.forEach(r -> watches.add(j.watchRun(r))));
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement("SELECT run_id, status FROM flows.runs WHERE run_id = ANY (?)")) {
      Array ids = c.createArrayOf("text", runs.stream().map(RunId::value).toArray());
      ps.setArray(1, ids);
      while (System.nanoTime() < until) {
        polls++;
        Optional<RunId> running = Optional.empty();
        long found = 0;
        long failed = 0;
        try (ResultSet r = ps.executeQuery()) {
          while (r.next()) {
            found++;
            String status = r.getString(2);
            if (status.equals("running")) {
              running = running.isPresent() ? running : Optional.of(new RunId(r.getString(1)));
            } else if (!status.equals("succeeded")) {
              failed++;
            }
          }
        }
        if (running.isEmpty() && found == runs.size()) {
          if (failed > 0) {
            throw new IllegalStateException(
                failed + " of " + runs.size() + " runs did not succeed");
          }
          return polls;
        }
        if (running.isEmpty() || watches.isEmpty()) {
          Thread.sleep(END_POLL.toMillis());
        } else {
          watches.get(runs.indexOf(running.get())).await(END_POLL);
        }
      }
    } finally {
      watches.forEach(RunWatch::close);
    }
    throw new IllegalStateException("runs did not end within " + RUN_TIMEOUT);
  }

  /** An executor that completes every deterministic attempt at once: claim → complete only. */
  private static final class NoopExecutor implements StepExecutor {
    @Override
    public StepKind kind() {
      return StepKind.DETERMINISTIC;
    }

    @Override
    public StepOutcome execute(dev.flows.worker.StepExecution execution) {
      return new StepOutcome.Succeeded(JSON.nullNode());
    }
  }

  private void deterministicChildren() throws Exception {
    log("deterministic no-op steps");
    String url = pg.fresh("bench_noop", true);
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      for (int c : plan.concurrencies()) {
        // Warm-up: the same backlog drained by a worker of its own, unmeasured, until the JIT has
        // compiled the worker's path (compiled code is the JVM's, not one worker's; without this
        // the section measured the interpreter: a no-op attempt took ~3 ms between its claim and
        // its completion at c=1).
        warmUp(() -> drainBacklog(url, journal, c));
        List<Double> rates = new ArrayList<>();
        for (int r = 0; r < STEP_ROUNDS; r++) {
          rates.add(drainBacklog(url, journal, c));
        }
        double rate = rates.stream().sorted().toList().get(STEP_ROUNDS / 2);
        // The same backlog drained through the journal alone (after one unmeasured drain).
        JournalFloor.noopAttempts(journal, admitCommands(journal, plan.noopRuns()), c);
        JournalFloor.NoopAttempts alone =
            JournalFloor.noopAttempts(journal, admitCommands(journal, plan.noopRuns()), c);
        report.noop(c, rate, alone);
        log(
            "  c="
                + c
                + " "
                + (int) rate
                + " steps/s (rounds "
                + rates
                + "); the journal alone "
                + (int) alone.perSecond()
                + " steps/s");
      }
    }
    pg.drop("bench_noop");
  }

  /**
   * Admits a backlog of one-step deterministic runs, then starts a worker of capacity {@code c}
   * with a no-op executor and answers steps/s until every run ended (worker start included).
   */
  private double drainBacklog(String url, PostgresJournal journal, int c) throws Exception {
    List<RunId> runs = admitCommands(journal, plan.noopRuns());
    WorkerConfig config =
        WorkerConfig.defaults().toBuilder().capacity(c).stopGrace(Engines.STOP_GRACE).build();
    long t0 = System.nanoTime();
    try (Worker w =
        new Worker(
            new ResilientJournal(journal, config),
            ExecutorRegistry.of(new NoopExecutor()),
            config,
            InstantSource.system())) {
      w.start();
      awaitEnded(url, runs);
    }
    return runs.size() / ((System.nanoTime() - t0) / 1e9);
  }

  static List<RunId> admitCommands(Journal journal, int count) throws Exception {
    var spec = Lowering.command("bench", List.of("true"), false, SdkConfig.DEFAULTS);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<RunId>> fs = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        fs.add(
            pool.submit(
                () ->
                    journal
                        .startRun(
                            new StartRun(
                                Optional.empty(),
                                "noop:" + UUID.randomUUID(),
                                spec,
                                Optional.empty(),
                                "bench"))
                        .runId()));
      }
      List<RunId> out = new ArrayList<>();
      for (Future<RunId> f : fs) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdown();
    }
  }

  // ---------------------------------------------------------------- MCP

  /** The two no-op servers: a stdio child JVM and Streamable HTTP on loopback. */
  private record Servers(McpServerConfig.Stdio stdio, JettyMcpServer http, Inventory inventory)
      implements AutoCloseable {
    static Servers start() throws Exception {
      McpServerConfig.Stdio stdio = Jvm.stdioServer(BenchFlows.STDIO, List.of(), Map.of());
      JettyMcpServer http = new JettyMcpServer(Optional.empty()).start();
      return new Servers(stdio, http, Engines.inventory(stdio, Optional.of(http.url())));
    }

    McpServerConfig config(String server) {
      return server.equals(BenchFlows.STDIO)
          ? stdio
          : new McpServerConfig.Http(
              BenchFlows.HTTP, http.url(), Map.of(), new dev.flows.kernel.mcp.McpAuth.None());
    }

    @Override
    public void close() throws Exception {
      http.close();
    }
  }

  /** Flows run at once to warm the durable MCP path up before it is measured. */
  private static final int WARMUP_FLOWS = 4;

  private ObjectNode mcpInput(String server, int n) {
    return JSON.objectNode().put("server", server).put("n", n);
  }

  private void mcp() throws Exception {
    log("f.mcp throughput and added latency");
    String url = pg.fresh("bench_mcp", true);
    int maxC = plan.concurrencies().getLast();
    try (Servers servers = Servers.start();
        PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = Engines.engine(journal, 2 * maxC + 2, DEFAULT_LEASE);
        McpSessions bare =
            new McpSessions(McpClientConfig.DEFAULTS, McpCredentials.fromEnvironment())) {
      engine.startWorker();
      for (String server : List.of(BenchFlows.STDIO, BenchFlows.HTTP)) {
        McpTransportPort session = bare.session(McpServerConfigJson.write(servers.config(server)));
        // Warm-up: starts the engine's own session to the server and gives the JIT the durable
        // path as long as the bare path gets it (the bare loop below makes thousands of calls).
        warmUp(
            () ->
                admitAndWait(
                    url,
                    engine,
                    BenchFlows.MCP,
                    WARMUP_FLOWS,
                    i -> mcpInput(server, plan.mcpWarmupCalls()),
                    servers.inventory()));
        bareCalls(session, 1, 0.5);
        for (int c : plan.concurrencies()) {
          int n = c == 1 ? plan.mcpCallsPerFlow() * 3 : plan.mcpCallsPerFlow();
          BenchFlows.MCP_CALL_NANOS.clear();
          double secs =
              admitAndWait(
                  url, engine, BenchFlows.MCP, c, i -> mcpInput(server, n), servers.inventory());
          Stats durable = Stats.of(BenchFlows.MCP_CALL_NANOS);
          long lostBefore = LOST_BARE_CALLS.sum();
          Baseline.Result b = bareCalls(session, c, plan.bareSeconds());
          report.mcp(server, c, c * n / secs, durable, b.perSecond(), b.latency());
          report.lostBareCalls(server, c, LOST_BARE_CALLS.sum() - lostBefore);
          log(
              "  "
                  + server
                  + " c="
                  + c
                  + " durable "
                  + (int) (c * n / secs)
                  + "/s bare "
                  + (int) b.perSecond()
                  + "/s");
        }
      }
    }
    pg.drop("bench_mcp");
  }

  /** The same no-op call made bare through the MCP client: no journal at all. */
  private static Baseline.Result bareCalls(McpTransportPort session, int c, double seconds)
      throws Exception {
    return Baseline.loop(
        c,
        seconds,
        (worker, end, record) -> {
          long t;
          while ((t = System.nanoTime()) < end) {
            try {
              session
                  .callTool(
                      "noop",
                      Map.of(),
                      Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, UUID.randomUUID().toString()))
                  .get(BARE_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
              record.accept(System.nanoTime() - t);
            } catch (java.util.concurrent.TimeoutException
                | java.util.concurrent.ExecutionException lost) {
              // Seen under concurrent load (no answer over stdio, a reconnecting HTTP session):
              // counted and reported, not fatal; a short pause lets a reconnect finish.
              LOST_BARE_CALLS.increment();
              Thread.sleep(50);
            }
          }
        });
  }

  // ---------------------------------------------------------------- latency

  private void dispatchLatency() throws Exception {
    log("run start -> first dispatch");
    String url = pg.fresh("bench_dispatch", true);
    List<Long> samples = new ArrayList<>();
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
        FlowsEngine engine = Engines.engine(journal, 4, DEFAULT_LEASE)) {
      engine.startWorker();
      admitAndWait(url, engine, BenchFlows.STEPS, 2, i -> stepsInput("warm" + i, 1));
      for (int i = 0; i < plan.dispatchSamples(); i++) {
        String id = "d" + i;
        long t0 = System.nanoTime();
        RunId run =
            engine
                .admit(
                    Engines.loaded(BenchFlows.STEPS),
                    stepsInput(id, 0),
                    Optional.empty(),
                    Inventory.empty())
                .runId();
        awaitEnded(url, List.of(run));
        samples.add(BenchFlows.FIRST_DISPATCH.get(id) - t0);
      }
    }
    report.dispatch(Stats.of(samples));
    pg.drop("bench_dispatch");
  }

  // ---------------------------------------------------------------- commits

  /** Turns autovacuum off for every table of the flows schema (a DO block: one statement). */
  private static final String NO_AUTOVACUUM =
      "DO $$ DECLARE t text; BEGIN FOR t IN SELECT tablename FROM pg_tables"
          + " WHERE schemaname = 'flows' LOOP EXECUTE format("
          + "'ALTER TABLE flows.%I SET (autovacuum_enabled = off, toast.autovacuum_enabled = off)',"
          + " t); END LOOP; END $$";

  private void commitsPerCall() throws Exception {
    log("commits per f.step and per f.mcp");
    Spent zeroSteps = spentBy(BenchFlows.STEPS, stepsInput("z", 0), false);
    Spent nSteps = spentBy(BenchFlows.STEPS, stepsInput("n", plan.commitSteps()), false);
    Spent zeroCalls = spentBy(BenchFlows.MCP, mcpInput(BenchFlows.STDIO, 0), true);
    Spent nCalls = spentBy(BenchFlows.MCP, mcpInput(BenchFlows.STDIO, plan.commitCalls()), true);
    report.commits("f.step", plan.commitSteps(), zeroSteps.marginal(nSteps, plan.commitSteps()));
    report.commits(
        "durable f.mcp (stdio)",
        plan.commitCalls(),
        zeroCalls.marginal(nCalls, plan.commitCalls()));
  }

  /**
   * Counters one engine lifetime spent (less the bench's own reads and polls), and how many of
   * those commits were the pool's liveness checks ({@link CheckedPool}).
   */
  record Spent(Pg.Counters counters, long checks) {
    /** Commits less the pool's liveness checks: what the engine itself asked for. */
    long engineCommits() {
      return counters.commits() - checks;
    }

    /**
     * Per call, between this (0 calls) and {@code n} ({@code count} calls): commits and writes raw,
     * then commits less the pool's liveness checks; then both runs' liveness checks, and the
     * engine's commits in all.
     */
    double[] marginal(Spent n, int count) {
      double commits = n.counters.commits() - counters.commits();
      double engine = n.engineCommits() - engineCommits();
      double writes = n.counters.writes() - counters.writes();
      return new double[] {
        commits / count, writes / count, engine / count, n.checks, checks, engine
      };
    }
  }

  /**
   * Counters spent by one engine lifetime (one run of {@code flow}) on a fresh engine and pool, the
   * pool closed before reading (so every backend has flushed its statistics), with the reads of
   * this method and its polling left out.
   */
  private Spent spentBy(Flow flow, ObjectNode input, boolean withServers) throws Exception {
    String url = pg.fresh("bench_commits", true);
    // Autovacuum's transactions count in xact_commit too, and a run of a few hundred inserts is
    // enough to start them on a fresh database: leave them out of an engine's count. The
    // migrations also leave the system catalogs due for a vacuum or an analyze, which an
    // autovacuum worker would do (with an xid) during some count: do it now.
    try (Connection c = DriverManager.getConnection(url);
        Statement st = c.createStatement()) {
      st.execute(NO_AUTOVACUUM);
      st.execute("VACUUM ANALYZE");
    }
    long polls = 0;
    long checks;
    Pg.Counters b;
    Pg.Counters perRead;
    try (Servers servers = withServers ? Servers.start() : null) {
      Inventory inv = withServers ? servers.inventory() : Inventory.empty();
      CheckedPool pool = new CheckedPool(JournalStoreConfig.forUrl(url));
      long checksBefore;
      try (pool;
          FlowsEngine engine = Engines.quiet(pool.journal, 4, DEFAULT_LEASE)) {
        engine.startWorker();
        // Start counting once the pool has opened all its connections (each opening is a few
        // transactions of its own, and a longer run would otherwise open more of them) and the
        // new backends have flushed their statistics.
        Pg.settleStats();
        Pg.Counters a = pg.counters(url);
        checksBefore = pool.checks();
        b = pg.counters(url);
        perRead = b.minus(a);
        RunId run = engine.admit(Engines.loaded(flow), input, Optional.empty(), inv).runId();
        polls = awaitEnded(url, List.of(run));
      }
      checks = pool.checks() - checksBefore;
    }
    Pg.settleStats();
    Pg.Counters c = pg.counters(url);
    pg.drop("bench_commits");
    Pg.Counters spent = c.minus(b);
    return new Spent(
        new Pg.Counters(spent.commits() - perRead.commits() - polls, spent.writes()), checks);
  }

  // ---------------------------------------------------------------- recovery

  private Process worker(String url, Duration lease, int capacity, Path log, List<String> jvm)
      throws Exception {
    return worker(url, lease, capacity, log, jvm, List.of());
  }

  private Process worker(
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

  private static void awaitReady(Process p, Path log) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
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

  /** Attempt start times of the run's root step, from the journal (database clock). */
  private static List<Instant> attemptStarts(String url, RunId run) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT at FROM flows.journal_entries WHERE run_id = ?"
                    + " AND entry_type = 'step.attempt.started' ORDER BY seq")) {
      ps.setString(1, run.value());
      List<Instant> out = new ArrayList<>();
      try (ResultSet r = ps.executeQuery()) {
        while (r.next()) {
          out.add(r.getTimestamp(1).toInstant());
        }
      }
      return out;
    }
  }

  private static List<Instant> awaitAttempts(String url, RunId run, int n, Duration timeout)
      throws Exception {
    long until = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < until) {
      List<Instant> s = attemptStarts(url, run);
      if (s.size() >= n) {
        return s;
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("no attempt #" + n + " of " + run + " within " + timeout);
  }

  /** A shorter reconcile interval, measured beside the default to show how much it buys. */
  static final Duration FAST_RECONCILE = Duration.ofSeconds(1);

  private void recovery() throws Exception {
    log("recovery after SIGKILL");
    for (Duration lease : plan.recoveryLeases()) {
      recovery(lease, WorkerConfig.DEFAULT_RECONCILE_INTERVAL, true);
    }
    if (!plan.recoveryLeases().isEmpty()) {
      recovery(plan.recoveryLeases().getFirst(), FAST_RECONCILE, false);
    }
  }

  private void recovery(Duration lease, Duration reconcile, boolean judged) throws Exception {
    List<Long> samples = new ArrayList<>();
    for (int i = 0; i < plan.recoverySamples(); i++) {
      String url = pg.fresh("bench_recovery", true);
      Path wlog = Files.createTempFile("bench-worker", ".log");
      Process victim = worker(url, lease, 4, wlog, List.of());
      try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
        awaitReady(victim, wlog);
        FlowsEngine admitter = Engines.engine(journal, 1, lease, reconcile);
        RunId run =
            admitter
                .admit(
                    Engines.loaded(BenchFlows.HOLD),
                    JSON.objectNode().put("ms", Duration.ofMinutes(10).toMillis()),
                    Optional.empty(),
                    Inventory.empty())
                .runId();
        awaitAttempts(url, run, 1, Duration.ofSeconds(60));
        // The survivor is up and idle before the kill, as in a deployment.
        try (FlowsEngine survivor = admitter) {
          survivor.startWorker();
          Thread.sleep(500);
          Instant killed = Instant.now();
          victim.destroyForcibly();
          victim.waitFor(30, TimeUnit.SECONDS);
          List<Instant> starts = awaitAttempts(url, run, 2, lease.plus(Duration.ofSeconds(60)));
          samples.add(Duration.between(killed, starts.get(1)).toNanos());
          survivor.cancelTree(run, "benchmark done");
        }
      } finally {
        victim.destroyForcibly();
      }
      pg.drop("bench_recovery");
    }
    report.recovery(lease, reconcile, judged, Stats.of(samples));
    log("  lease " + lease + " reconcile " + reconcile + " p50 " + Stats.of(samples).p50() + " ms");
  }

  // ---------------------------------------------------------------- waiting runs

  private static long rssBytes(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }

  /** Admits {@code n} runs of {@code flow} with {@code input}, from 8 threads. */
  private static void admitAll(String url, int n, LoadedFlow flow, JsonNode input, Inventory inv)
      throws Exception {
    try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url))) {
      FlowsEngine admitter = Engines.engine(journal, 1, DEFAULT_LEASE);
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        fs.add(pool.submit(() -> admitter.admit(flow, input, Optional.empty(), inv)));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      pool.shutdown();
      admitter.close();
    }
  }

  /** The number of threads of process {@code pid}. */
  private static long threads(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("Threads:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no Threads for " + pid);
  }

  /** Sleeping runs of the sleepers section: 10,000 but in the smoke test. */
  static int sleepers(String mode) {
    return mode.equals("smoke") ? 0 : 10_000;
  }

  /** How far ahead the sleepers' common due time is set: past admitting and suspending them. */
  static final Duration SLEEPERS_DUE = Duration.ofSeconds(150);

  /**
   * 10,000 runs sleeping at once ({@code f.sleepUntil}) on one worker: its RSS and thread count
   * while they all sleep, then the lag from their due time to the start of the attempt that resumes
   * each (p50, p99; due time from the body's memo, resumption from the journal).
   */
  private void sleepers() throws Exception {
    int n = sleepers(plan.mode());
    if (n == 0) {
      return;
    }
    log("a worker holding " + n + " sleeping runs");
    String url = pg.fresh("bench_sleepers", true);
    Path wlog = Files.createTempFile("bench-worker", ".log");
    Process w = worker(url, DEFAULT_LEASE, 64, wlog, WAITING_WORKER_JVM);
    try {
      awaitReady(w, wlog);
      long threadsIdle = threads(w.pid());
      Instant due = Instant.now().plus(SLEEPERS_DUE);
      admitAll(
          url,
          n,
          Engines.loaded(BenchFlows.SLEEPER),
          JSON.objectNode().put("until", due.toString()),
          Engines.inventory(
              Jvm.stdioServer(BenchFlows.STDIO, List.of(), Map.of()), Optional.empty()));
      long asleep = 0;
      while (Instant.now().isBefore(due.minusSeconds(10)) && (asleep = suspended(url)) < n) {
        Thread.sleep(200);
      }
      long rss = rssBytes(w.pid());
      long threadsAsleep = threads(w.pid());
      log("  asleep " + asleep + " rss " + rss / (1 << 20) + " MiB threads " + threadsAsleep);
      long doneBy = System.nanoTime() + SLEEPERS_DUE.multipliedBy(2).toNanos();
      while (System.nanoTime() < doneBy
          && count(url, "SELECT count(*) FROM flows.runs WHERE status = 'succeeded'") < n) {
        Thread.sleep(500);
      }
      List<Double> lags = new ArrayList<>();
      try (Connection c = DriverManager.getConnection(url);
          ResultSet r =
              c.createStatement()
                  .executeQuery(
                      "SELECT extract(epoch FROM s.at - CAST(e.output ->> 'until' AS timestamptz))"
                          + " * 1000 FROM flows.effect_elections e JOIN flows.journal_entries s"
                          + " ON s.run_id = e.run_id AND s.entry_type = 'step.attempt.started'"
                          + " AND s.attempt = 2 WHERE e.surface_path = '/memo/1'")) {
        while (r.next()) {
          lags.add(r.getDouble(1));
        }
      }
      java.util.Collections.sort(lags);
      report.sleepers(
          n,
          asleep,
          rss,
          threadsIdle,
          threadsAsleep,
          lags.size(),
          lags.isEmpty() ? Double.NaN : lags.get(lags.size() / 2),
          lags.isEmpty()
              ? Double.NaN
              : lags.get(Math.min(lags.size() - 1, lags.size() * 99 / 100)));
    } finally {
      w.destroyForcibly();
      w.waitFor(30, TimeUnit.SECONDS);
    }
    pg.drop("bench_sleepers");
  }

  private static long heapUsed(Path log) throws Exception {
    long last = -1;
    for (String line : Files.readAllLines(log)) {
      if (line.startsWith("heap used=")) {
        last = Long.parseLong(line.substring("heap used=".length(), line.indexOf(' ', 10)));
      }
    }
    return last;
  }

  private static long running(String url) throws Exception {
    return count(url, "SELECT count(*) FROM flows.steps WHERE status = 'running'");
  }

  /** Bodies that gave their attempt back while their call runs (SdkConfig.suspendAfter). */
  private static long suspended(String url) throws Exception {
    return count(
        url,
        "SELECT count(*) FROM flows.steps WHERE status = 'ready' AND last_reason = 'suspended'");
  }

  /** Attempts the journal ended because their lease ran out (a worker that fell behind). */
  private static long leasesExpired(String url) throws Exception {
    return count(
        url,
        "SELECT count(*) FROM flows.journal_entries"
            + " WHERE entry_type = 'step.completed' AND payload ->> 'reason' = 'lease_expired'");
  }

  private static long count(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        ResultSet r = c.createStatement().executeQuery(sql)) {
      r.next();
      return r.getLong(1);
    }
  }

  /**
   * The longest the waiting section waits, after the ramp, for every body to suspend: a ramp of
   * 10,000 bodies saturates the worker's pool, and some suspensions retry past suspendAfter.
   */
  static final Duration SUSPEND_WAIT = SdkConfig.DEFAULT_SUSPEND_AFTER.plusSeconds(50);

  /** The MCP call timeout of the waiting worker: long enough to start 10,000 bodies. */
  static final Duration WAITING_CALL_TIMEOUT = Duration.ofMinutes(10);

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

  private void waitingRuns() throws Exception {
    int n = plan.waitingRuns();
    if (n == 0) {
      return;
    }
    log("a worker holding " + n + " waiting runs");
    String url = pg.fresh("bench_waiting", true);
    Path wlog = Files.createTempFile("bench-worker", ".log");
    McpServerConfig.Stdio stdio = Jvm.stdioServer(BenchFlows.STDIO, List.of(), Map.of());
    Inventory inv = Engines.inventory(stdio, Optional.empty());
    // The calls must outlast the ramp and the measurement, and stay within the worker's call
    // timeout (raised for this section only: 10,000 bodies take a while to start).
    long sleepMs = WAITING_CALL_TIMEOUT.toMillis() / 2;
    Process w =
        worker(
            url,
            DEFAULT_LEASE,
            2 * n + 8,
            wlog,
            WAITING_WORKER_JVM,
            List.of(String.valueOf(WAITING_CALL_TIMEOUT.toMillis())));
    try {
      awaitReady(w, wlog);
      long t0 = System.nanoTime();
      admitAll(url, n, Engines.loaded(BenchFlows.SLOW), JSON.objectNode().put("ms", sleepMs), inv);
      // Held: every call running, and every body either waiting in memory (its attempt running)
      // or suspended (SdkConfig.suspendAfter, its attempt given back until the call ends).
      long held = 0;
      long until = System.nanoTime() + Duration.ofMillis(sleepMs / 2).toNanos();
      while (System.nanoTime() < until && (held = running(url) + suspended(url)) < 2L * n) {
        Thread.sleep(200);
      }
      // Bodies give their attempts back SdkConfig.suspendAfter into their wait (at once past
      // maxResidentWaits): the window starts once they all have and only the calls still hold
      // attempts (or at SUSPEND_WAIT after the ramp, if some never do: the table shows how many).
      long suspendBy = System.nanoTime() + SUSPEND_WAIT.toNanos();
      while (System.nanoTime() < suspendBy && (suspended(url) < n || running(url) > n)) {
        Thread.sleep(200);
      }
      long suspendedAtStart = suspended(url);
      double rampSeconds = (System.nanoTime() - t0) / 1e9;
      // Autovacuum/analyze after the ramp's inserts would land in the window and be counted as
      // the worker's writes: do it now, then let the statistics settle.
      try (Connection c = DriverManager.getConnection(url)) {
        c.createStatement().execute("VACUUM ANALYZE");
        // Renewing 20,000 leases dirties enough rows for an auto-analyze every period or so, and
        // its transaction would be counted as the worker's: housekeeping off for the window.
        c.createStatement().execute(NO_AUTOVACUUM);
      }
      // The ramp's own transactions must not be counted in the window.
      Pg.settleIdleStats();
      Pg.Counters a = pg.counters(url);
      long windowStart = System.nanoTime();
      Thread.sleep((long) (plan.waitingWindowSeconds() * 1000));
      Pg.Counters b = pg.counters(url);
      double window = (System.nanoTime() - windowStart) / 1e9;
      long heldAfter = running(url) + suspended(url);
      long suspendedAtEnd = suspended(url);
      long rss = rssBytes(w.pid());
      long heap = heapUsed(wlog);
      // Heap in use counts garbage not yet collected; after a full GC it is the live set.
      new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
              String.valueOf(w.pid()),
              "GC.run")
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor(60, TimeUnit.SECONDS);
      Thread.sleep(2_500);
      long live = heapUsed(wlog);
      report.waiting(
          n,
          held,
          heldAfter,
          suspendedAtStart,
          suspendedAtEnd,
          rampSeconds,
          b.minus(a),
          window,
          rss,
          heap,
          live,
          leasesExpired(url));
      log("  held " + held + " rss " + rss / (1 << 20) + " MiB");
    } finally {
      w.destroyForcibly();
      w.waitFor(30, TimeUnit.SECONDS);
    }
    pg.drop("bench_waiting");
  }

  // ---------------------------------------------------------------- scaling

  /** Slots of each worker process in the scaling section; as many flows per worker are admitted. */
  static final int SCALING_CAPACITY = 16;

  private void scaling() throws Exception {
    log("scaling over worker processes");
    report.scalingSteps(plan.scalingSteps());
    for (int procs : plan.workerProcesses()) {
      String url = pg.fresh("bench_scaling", true);
      List<Process> workers = new ArrayList<>();
      try {
        List<Path> logs = new ArrayList<>();
        for (int i = 0; i < procs; i++) {
          Path wlog = Files.createTempFile("bench-worker", ".log");
          logs.add(wlog);
          workers.add(worker(url, DEFAULT_LEASE, SCALING_CAPACITY, wlog, List.of()));
        }
        for (int i = 0; i < procs; i++) {
          awaitReady(workers.get(i), logs.get(i));
        }
        try (PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
            FlowsEngine admitter = Engines.engine(journal, 1, DEFAULT_LEASE)) {
          // Every worker's slots filled, and the same steps per flow as the f.step section. The
          // workers' JVMs start cold: the workload first runs unmeasured until the JIT has
          // compiled it in each of them, for as long per worker as the other sections warm up
          // one engine (a cold worker interprets; with one warm-up for all, more workers each
          // saw less of it, which once made this table fall with more processes).
          int flows = SCALING_CAPACITY * procs;
          int n = plan.scalingSteps();
          warmUp(
              plan.warmupSeconds() * procs,
              () -> admitAndWait(url, admitter, BenchFlows.STEPS, flows, i -> stepsInput("w", n)));
          report.scaling(
              procs, medianStepRate(url, admitter, flows, n, "s", "  " + procs + " workers:"));
        }
      } finally {
        for (Process p : workers) {
          p.destroyForcibly();
          p.waitFor(30, TimeUnit.SECONDS);
        }
      }
      pg.drop("bench_scaling");
    }
  }
}
