package dev.flows.ops.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What one run measured, as the sections hand it in, and its Markdown: one renderer per section of
 * the report (environment, tables, then each target as a ratio), in the order they print.
 */
final class Report {
  final Map<String, String> env = new LinkedHashMap<>();

  /**
   * One section of the run, with the machine's 1-minute load average when it began and ended: the
   * machine is shared, and a figure is read with the load it was measured under.
   */
  record SectionRun(String name, Instant began, double seconds, double loadStart, double loadEnd) {}

  final List<SectionRun> sections = new ArrayList<>();
  Map<String, String> pgSettings = Map.of();
  final Map<Integer, Baseline.Result> inserts = new TreeMap<>();
  final Map<Integer, Baseline.Result> claims = new TreeMap<>();
  final Map<Integer, Double> steps = new TreeMap<>();

  /** Steps each flow of the f.step section makes (four times as many at c=1). */
  int stepsPerFlow;

  final Map<Integer, Double> noop = new TreeMap<>();
  final Map<Integer, JournalFloor.NoopAttempts> noopAlone = new TreeMap<>();
  final Map<Integer, Baseline.Result> memoStatementFloor = new TreeMap<>();
  final Map<Integer, Baseline.Result> memoVerbFloor = new TreeMap<>();
  Baseline.Result callFloor;
  final Map<String, Map<Integer, double[]>> mcp = new LinkedHashMap<>();
  final Map<String, Stats[]> mcpLatency = new LinkedHashMap<>();

  /** Per transport, a durable f.mcp call's stages at c=1 ({@link McpStages#STAGES}). */
  final Map<String, List<Stats>> mcpStages = new LinkedHashMap<>();

  /** Per transport and revision ({@link McpStagesBench}): durable call, bare call, stages. */
  final Map<String, McpStagesMarkdown.Measured> mcpRevisions = new LinkedHashMap<>();

  Stats dispatch = Stats.of(List.of());

  /** Per call kind: N, then {@link CommitsBench.Spent#marginal}'s six numbers. */
  final Map<String, double[]> commits = new LinkedHashMap<>();

  /** One recovery measurement; only those on product defaults are judged against the target. */
  record Recovery(Duration lease, Duration reconcile, boolean judged, Stats stats) {}

  final List<Recovery> recovery = new ArrayList<>();

  /** The sleepers section's numbers. */
  record Sleepers(
      int runs,
      long asleep,
      long rss,
      long threadsIdle,
      long threadsAsleep,
      int resumed,
      double lagP50Ms,
      double lagP99Ms) {}

  Optional<Sleepers> sleepers = Optional.empty();

  /** The schedules section's numbers: ticks admitted of one minute, nominal → admitted lags. */
  record Schedules(
      int schedules, int admitted, double lagP50Ms, double lagP99Ms, double lagMaxMs) {}

  Optional<Schedules> schedules = Optional.empty();

  /**
   * The tasks section's numbers: {@code working} tasks at once after {@code rampSeconds}, the
   * worker idle and at that plateau, the most attempts running and OS threads seen until the first
   * task ended, then the drain and the server's polls.
   */
  record Tasks(
      int runs,
      int capacity,
      long hintMs,
      long taskMs,
      long working,
      double rampSeconds,
      TasksBench.Sample idle,
      TasksBench.Sample plateau,
      long maxRunning,
      long maxProcThreads,
      double drainSeconds,
      long succeeded,
      TaskPolls polls) {
    /** Threads (platform and virtual, from the dumps) the plateau added to the idle worker. */
    long addedThreads() {
      return plateau.dump().platform()
          + plateau.dump().virtual()
          - idle.dump().platform()
          - idle.dump().virtual();
    }

    /**
     * The most threads the tasks may add: far fewer than one per task. A worker adds threads per
     * slot (its attempt, its call's sending or answering thread, HTTP client and Reactor pool
     * threads), a number that does not grow with the tasks.
     */
    long threadBound() {
      return runs / 4;
    }

    /** Heap after GC the plateau added, per task working (NaN when unknown). */
    double liveHeapPerTask() {
      return idle.liveHeap() < 0 || plateau.liveHeap() < 0 || working == 0
          ? Double.NaN
          : (plateau.liveHeap() - idle.liveHeap()) / (double) working;
    }

    double rssPerTask() {
      return working == 0 ? Double.NaN : (plateau.rss() - idle.rss()) / (double) working;
    }
  }

  Optional<Tasks> tasks = Optional.empty();

  void tasks(Tasks t) {
    tasks = Optional.of(t);
  }

  /** The tracing section's medians off and on, and what the collector stand-in received. */
  record Tracing(TracingBench.Mode off, TracingBench.Mode on, long exports, long exportedBytes) {}

  Optional<Tracing> tracing = Optional.empty();

  /** The cli section's commands, the bare JVM start first; empty when it did not run. */
  List<CliBench.Timed> cli = List.of();

  /** The waiting section's numbers; {@code heap} and {@code liveHeap} are -1 when unknown. */
  record Waiting(
      int runs,
      long held,
      long heldAfter,
      long suspended,
      long suspendedAfter,
      double ramp,
      Pg.Counters spent,
      double window,
      long rss,
      long heap,
      long liveHeap,
      long leasesExpired,
      double renewalPeriod) {
    /** Write commits per renewal period over the window. */
    double commitsPerRenewal() {
      return spent.writes() / window * renewalPeriod;
    }
  }

  Optional<Waiting> waiting = Optional.empty();

  int scalingSteps;
  final Map<Integer, ScalingBench.Result> scaling = new TreeMap<>();
  Optional<PruneBench.Result> prune = Optional.empty();
  Optional<GrowthBench.Result> growth = Optional.empty();
  Optional<TimersBench.Result> timers = Optional.empty();
  Optional<AgentsBench.Result> agents = Optional.empty();
  Optional<ReplayCheckBench.Result> replayCheck = Optional.empty();
  Duration runtime = Duration.ZERO;

  /** The short-runs section's loads, this engine's, in the order measured. */
  final List<ShortRunsBench.Cell> shortRuns = new ArrayList<>();

  /** The same loads on DBOS Transact, or why they were not measured. */
  final List<ShortRunsBench.Cell> dbos = new ArrayList<>();

  /** The same loads on DBOS Transact with every run enqueued on a queue of worker concurrency C. */
  final List<ShortRunsBench.Cell> dbosQueued = new ArrayList<>();

  Optional<String> dbosSkipped = Optional.empty();

  void shortRun(ShortRunsBench.Cell cell) {
    shortRuns.add(cell);
  }

  void dbos(ShortRunsBench.Cell cell) {
    dbos.add(cell);
  }

  void dbosQueued(ShortRunsBench.Cell cell) {
    dbosQueued.add(cell);
  }

  /**
   * One f.step load's round of the short runs on both engines: who went first, each side's runs/s
   * (NaN when it did not run), the one-minute load average and a bare INSERT+COMMIT's p50 just
   * before, and the JIT's and GC's time during each side's load.
   */
  record ShortRunsRound(
      String shape,
      int calls,
      int c,
      int round,
      boolean engineFirst,
      double engineRate,
      double dbosRate,
      double loadAverage,
      double commitP50Ms,
      ShortRunsRounds.JvmWork engineWork,
      ShortRunsRounds.JvmWork dbosWork) {
    double ratio() {
      return engineRate / dbosRate;
    }
  }

  final List<ShortRunsRound> shortRunsRounds = new ArrayList<>();

  void shortRunsRound(ShortRunsRound r) {
    shortRunsRounds.add(r);
  }

  void dbosSkipped(String why) {
    dbosSkipped = Optional.of(why);
  }

  void prune(PruneBench.Result r) {
    prune = Optional.of(r);
  }

  void growth(GrowthBench.Result r) {
    growth = Optional.of(r);
  }

  void timers(TimersBench.Result r) {
    timers = Optional.of(r);
  }

  void agents(AgentsBench.Result r) {
    agents = Optional.of(r);
  }

  void replayCheck(ReplayCheckBench.Result r) {
    replayCheck = Optional.of(r);
  }

  void sectionRan(SectionRun s) {
    sections.add(s);
  }

  /** The 1-minute load average now. */
  static double loadNow() throws java.io.IOException {
    return Double.parseDouble(
        java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0]);
  }

  void environment(String mode, Map<String, String> settings) throws Exception {
    env.put("date", Instant.now().toString());
    env.put("mode", mode);
    env.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
    env.put("memory", memTotal());
    env.put("java", System.getProperty("java.vm.name") + " " + Runtime.version());
    // The machine is shared: other processes' load skews CPU-bound engine numbers, not the disk's.
    String[] load =
        java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
    env.put("load average at start (1/5/15 min)", load[0] + " / " + load[1] + " / " + load[2]);
    pgSettings = settings;
  }

  private static String memTotal() throws Exception {
    for (String l : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/meminfo"))) {
      if (l.startsWith("MemTotal:")) {
        long kb = Long.parseLong(l.replaceAll("[^0-9]", ""));
        return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
      }
    }
    return "unknown";
  }

  void baseline(int c, Baseline.Result ins, Baseline.Result claim) {
    inserts.put(c, ins);
    claims.put(c, claim);
  }

  void stepsPerFlow(int n) {
    stepsPerFlow = n;
  }

  void steps(int c, double rate) {
    steps.put(c, rate);
  }

  void memoFloor(int c, Baseline.Result statement, Baseline.Result verb) {
    memoStatementFloor.put(c, statement);
    memoVerbFloor.put(c, verb);
  }

  void callFloor(Baseline.Result calls) {
    callFloor = calls;
  }

  void noop(int c, double rate, JournalFloor.NoopAttempts alone) {
    noop.put(c, rate);
    noopAlone.put(c, alone);
  }

  void mcp(String server, int c, double durable, Stats durableLat, double bare, Stats bareLat) {
    mcp.computeIfAbsent(server, s -> new TreeMap<>()).put(c, new double[] {durable, bare, 0});
    if (c == 1) {
      mcpLatency.put(server, new Stats[] {durableLat, bareLat});
    }
  }

  void mcpStages(String server, List<Stats> stages) {
    mcpStages.put(server, stages);
  }

  void mcpRevision(
      String name, Stats durable, Stats bare, Stats bareInterleaved, List<Stats> stages) {
    mcpRevisions.put(name, new McpStagesMarkdown.Measured(durable, bare, bareInterleaved, stages));
  }

  void lostBareCalls(String server, int c, long lost) {
    mcp.get(server).get(c)[2] = lost;
  }

  void dispatch(Stats s) {
    dispatch = s;
  }

  void commits(String call, int n, double[] marginal) {
    double[] row = new double[marginal.length + 1];
    row[0] = n;
    System.arraycopy(marginal, 0, row, 1, marginal.length);
    commits.put(call, row);
  }

  void recovery(Duration lease, Duration reconcile, boolean judged, Stats s) {
    recovery.add(new Recovery(lease, reconcile, judged, s));
  }

  void waiting(Waiting w) {
    waiting = Optional.of(w);
  }

  void sleepers(Sleepers s) {
    sleepers = Optional.of(s);
  }

  void schedules(Schedules s) {
    schedules = Optional.of(s);
  }

  void tracing(Tracing t) {
    tracing = Optional.of(t);
  }

  void cli(List<CliBench.Timed> commands) {
    cli = List.copyOf(commands);
  }

  void scalingSteps(int n) {
    scalingSteps = n;
  }

  void scaling(int procs, ScalingBench.Result result) {
    scaling.put(procs, result);
  }

  void runtime(Duration d) {
    runtime = d;
  }

  String markdown(Bench.Plan plan) {
    StringBuilder md = new StringBuilder();
    EnvironmentMarkdown.render(this, plan, md);
    BaselineMarkdown.render(this, md);
    ThroughputMarkdown.render(this, md);
    FloorMarkdown.render(this, md);
    McpMarkdown.render(this, md);
    LatencyMarkdown.render(this, md);
    McpStagesMarkdown.render(this, md);
    CommitsMarkdown.render(this, md);
    RecoveryMarkdown.render(this, md);
    SleepersMarkdown.render(this, md);
    TimersMarkdown.render(this, md);
    SchedulesMarkdown.render(this, md);
    WaitingMarkdown.render(this, md);
    TasksMarkdown.render(this, md);
    ScalingMarkdown.render(this, md);
    PruneMarkdown.render(this, md);
    GrowthMarkdown.render(this, md);
    AgentsMarkdown.render(this, md);
    ReplayCheckMarkdown.render(this, md);
    TracingMarkdown.render(this, md);
    CliMarkdown.render(this, md);
    ShortRunsMarkdown.render(this, md);
    DbosMarkdown.render(this, md);
    TargetsMarkdown.render(this, md);
    return md.toString();
  }
}
