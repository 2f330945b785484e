package dev.flows.ops.bench;

import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The benchmark: {@code ops/bench/run [--quick|--smoke] --url JDBC_URL [--out FILE]}. Measures this
 * Postgres's own limits first, then the engine on the same server, and writes a Markdown report
 * with each target as a ratio against that baseline.
 */
public final class Bench {
  private static final Duration DEFAULT_LEASE = WorkerConfig.DEFAULT_LEASE;

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
        case "smoke" -> smoke();
        case "quick" -> quick();
        default -> full();
      };
    }

    /** Each section once, tiny: proves the bench runs. */
    private static Plan smoke() {
      return new Plan(
          "smoke",
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
    }

    /** Short measured windows: a figure in minutes. */
    private static Plan quick() {
      return new Plan(
          "quick",
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
          List.of(1, 2, 4, 8),
          100,
          200_000,
          5);
    }

    /** The published figures. */
    private static Plan full() {
      return new Plan(
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
          List.of(1, 2, 4, 8),
          500,
          1_000_000,
          15);
    }
  }

  private final Plan plan;
  private final Pg pg;
  private final Report report = new Report();

  /**
   * The sections {@code --only} names, in the order they run; the baseline always runs first (every
   * ratio needs it).
   */
  private static final Map<String, Section.Of> BY_NAME = sections();

  private static Map<String, Section.Of> sections() {
    Map<String, Section.Of> s = new LinkedHashMap<>();
    s.put("steps", StepsBench::new);
    s.put("floor", JournalFloor::section);
    s.put("children", ChildrenBench::new);
    s.put("mcp", McpBench::new);
    s.put("latency", LatencyBench::new);
    s.put("mcpstages", McpStagesBench::new);
    s.put("commits", CommitsBench::new);
    s.put("recovery", RecoveryBench::new);
    s.put("waiting", WaitingBench::new);
    s.put("sleepers", SleepersBench::new);
    s.put("schedules", SchedulesBench::new);
    s.put("tasks", TasksBench::new);
    s.put("scaling", ScalingBench::new);
    s.put("prune", PruneBench::section);
    s.put("tracing", TracingBench::new);
    s.put("cli", CliBench::new);
    s.put("shortruns", (plan, pg, report) -> new ShortRunsRounds(plan, pg, report, true, false));
    s.put("dbos", (plan, pg, report) -> new ShortRunsRounds(plan, pg, report, false, true));
    s.put("growth", GrowthBench::new);
    s.put("timers", TimersBench::new);
    s.put("agents", AgentsBench::new);
    s.put("replaycheck", ReplayCheckBench::new);
    return java.util.Collections.unmodifiableMap(s);
  }

  /** Section names for {@code --only}; the baseline always runs (every ratio needs it). */
  static final List<String> SECTIONS = List.copyOf(BY_NAME.keySet());

  private final Set<String> only;

  Bench(Plan plan, Pg pg) {
    this(plan, pg, Set.of());
  }

  Bench(Plan plan, Pg pg, Set<String> only) {
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
    Set<String> only = Set.of();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> mode = "quick";
        case "--smoke" -> mode = "smoke";
        case "--url" -> url = args[++i];
        case "--out" -> out = Path.of(args[++i]);
        case "--only" -> only = Set.of(args[++i].split(","));
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
    } catch (GrowthFill.NoRoom e) {
      System.err.println(e.getMessage());
      System.exit(2);
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
    timed("baseline", () -> new BaselineBench(plan, pg, report).run());
    for (Map.Entry<String, Section.Of> s : BY_NAME.entrySet()) {
      if (s.getKey().equals("shortruns") && runs("shortruns") && runs("dbos")) {
        // One section for both, their loads in alternating rounds: a ratio is only as good as
        // the two sides' sharing the same minutes of this machine.
        timed("shortruns+dbos", new ShortRunsRounds(plan, pg, report, true, true)::run);
      } else if (s.getKey().equals("dbos") && runs("shortruns") && runs("dbos")) {
        continue;
      } else if (runs(s.getKey())) {
        Section section = s.getValue().of(plan, pg, report);
        timed(s.getKey(), section::run);
      }
    }
    report.runtime(Duration.ofNanos(System.nanoTime() - began));
    return report.markdown(plan);
  }

  /** Runs one section, noting its time and the load average at its start and end. */
  private void timed(String name, Section section) throws Exception {
    Instant began = Instant.now();
    double loadStart = Report.loadNow();
    long t0 = System.nanoTime();
    section.run();
    report.sectionRan(
        new Report.SectionRun(
            name, began, (System.nanoTime() - t0) / 1e9, loadStart, Report.loadNow()));
  }

  /** A line of progress on stdout, timestamped. */
  static void log(String s) {
    System.out.println(Instant.now() + " " + s);
    System.out.flush();
  }
}
