package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;
import static dev.flows.ops.bench.Runs.admitAll;
import static dev.flows.ops.bench.Runs.count;
import static dev.flows.ops.bench.Runs.running;
import static dev.flows.ops.bench.WorkerProcesses.awaitReady;
import static dev.flows.ops.bench.WorkerProcesses.rssBytes;
import static dev.flows.ops.bench.WorkerProcesses.threadDump;
import static dev.flows.ops.bench.WorkerProcesses.threads;
import static dev.flows.ops.bench.WorkerProcesses.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.mcp.testkit.TaskTestServer;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Task-backed calls in flight on one worker JVM of few slots: its threads, slots and memory while
 * every task works at once, and how the server's tasks were polled against the interval they hint.
 */
record TasksBench(Bench.Plan plan, Pg pg, Report report) implements Section {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** The worker's slots: far fewer than the tasks, which must not take one each. */
  static final int CAPACITY = 16;

  /** The poll interval every task hints. */
  static final Duration HINT = Duration.ofSeconds(2);

  /** Tasks in flight at once: 1,000 (250 quick, none in the smoke test). */
  static int tasks(String mode) {
    return switch (mode) {
      case "smoke" -> 0;
      case "quick" -> 250;
      default -> 1_000;
    };
  }

  /**
   * How long each task works: past the ramp of admitting the runs and creating every task (a few to
   * a hundred tasks a second on a shared two-core machine), then a window with all of them working.
   */
  static Duration taskLength(String mode) {
    return mode.equals("quick") ? Duration.ofSeconds(120) : Duration.ofSeconds(240);
  }

  /** How long the runs may take to end after the first task completed. */
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(5);

  @Override
  public void run() throws Exception {
    int n = tasks(plan.mode());
    if (n == 0) {
      return;
    }
    Duration length = taskLength(plan.mode());
    log(n + " task-backed calls in flight on one worker of " + CAPACITY + " slots");
    String url = pg.fresh("bench_tasks", true);
    Path dir = Files.createTempDirectory("bench-tasks");
    Path events = dir.resolve("events.jsonl");
    Path wlog = dir.resolve("worker.log");
    try (TaskTestServer server = TaskTestServer.http(dir.resolve("tasks.jsonl"), events)) {
      Process w =
          worker(
              url, WorkerConfig.DEFAULT_LEASE, CAPACITY, wlog, WorkerProcesses.WAITING_WORKER_JVM);
      try {
        awaitReady(w, wlog);
        Thread.sleep(2_000);
        report.tasks(measure(w, wlog, url, n, length, server, events));
      } finally {
        w.destroyForcibly();
        w.waitFor(30, TimeUnit.SECONDS);
      }
    }
    pg.drop("bench_tasks");
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    Files.delete(dir);
  }

  /** Admits {@code n} runs on the ready worker {@code w}, samples it idle and working, drains. */
  private Report.Tasks measure(
      Process w, Path wlog, String url, int n, Duration length, TaskTestServer server, Path events)
      throws Exception {
    Sample idle = Sample.of(w.pid(), wlog, url);
    long t0 = System.nanoTime();
    admitAll(
        url,
        n,
        Engines.loaded(BenchFlows.TASK),
        JSON.objectNode().put("ms", length.toMillis()).put("pollMs", HINT.toMillis()),
        Engines.taskInventory(server.url()));
    long working = 0;
    long until = t0 + length.toNanos();
    // The plateau: every task working and every body given back (suspended on its call).
    while (System.nanoTime() < until
        && ((working = working(url)) < n || bodiesSuspended(url) < n)
        && ended(url) == 0) {
      Thread.sleep(200);
    }
    double ramp = (System.nanoTime() - t0) / 1e9;
    log("  " + working + " tasks working at once after " + (int) ramp + " s");
    Sample plateau = Sample.of(w.pid(), wlog, url);
    Most most = most(w, url, plateau, until + HINT.toNanos() * 2);
    double drain = drainSeconds(url, n);
    long succeeded =
        count(
            url,
            "SELECT count(*) FROM flows.runs WHERE parent_run_id IS NULL"
                + " AND status = 'succeeded'");
    TaskPolls polls = TaskPolls.of(read(events), HINT.toMillis(), length.toMillis());
    log(
        "  threads "
            + idle.dump()
            + " → "
            + plateau.dump()
            + ", polls/task "
            + polls.pollsPerTask()
            + ", min gap "
            + polls.minGapMs()
            + " ms, drained in "
            + (int) drain
            + " s, "
            + succeeded
            + " succeeded");
    return new Report.Tasks(
        n,
        CAPACITY,
        HINT.toMillis(),
        length.toMillis(),
        working,
        ramp,
        idle,
        plateau,
        most.running(),
        most.threads(),
        drain,
        succeeded,
        polls);
  }

  /** The most attempts running and OS threads seen. */
  private record Most(long running, long threads) {}

  /** Attempts running and threads sampled until the first task ends (or {@code by}): their most. */
  private static Most most(Process w, String url, Sample plateau, long by) throws Exception {
    long maxRunning = plateau.running();
    long maxThreads = plateau.procThreads();
    while (ended(url) == 0 && System.nanoTime() < by) {
      maxRunning = Math.max(maxRunning, running(url));
      maxThreads = Math.max(maxThreads, threads(w.pid()));
      Thread.sleep(200);
    }
    return new Most(maxRunning, maxThreads);
  }

  /** Waits (up to the drain timeout) for the {@code n} root runs to end; the seconds it took. */
  private static double drainSeconds(String url, int n) throws Exception {
    long drainStart = System.nanoTime();
    long drainBy = drainStart + DRAIN_TIMEOUT.toNanos();
    while (System.nanoTime() < drainBy && rootsEnded(url) < n) {
      Thread.sleep(200);
    }
    return (System.nanoTime() - drainStart) / 1e9;
  }

  /**
   * The worker at one moment: its OS threads ({@code /proc}), its thread dump (platform and
   * virtual), attempts running, bodies suspended, RSS and heap after a full GC.
   */
  record Sample(
      long procThreads,
      WorkerProcesses.Threads dump,
      long running,
      long suspended,
      long rss,
      long liveHeap) {
    static Sample of(long pid, Path log, String url) throws Exception {
      return new Sample(
          threads(pid),
          threadDump(pid),
          Runs.running(url),
          bodiesSuspended(url),
          rssBytes(pid),
          WorkerProcesses.liveHeap(pid, log));
    }
  }

  /** Flow bodies (root runs' steps) that gave their attempt back. */
  static long bodiesSuspended(String url) throws Exception {
    return count(
        url,
        "SELECT count(*) FROM flows.steps s JOIN flows.runs r ON r.run_id = s.run_id"
            + " WHERE r.parent_run_id IS NULL AND s.status = 'ready'"
            + " AND s.last_reason = 'suspended'");
  }

  private static long working(String url) throws Exception {
    return count(url, "SELECT count(*) FROM flows.mcp_tasks WHERE status = 'working'");
  }

  private static long ended(String url) throws Exception {
    return count(url, "SELECT count(*) FROM flows.mcp_tasks WHERE status <> 'working'");
  }

  private static long rootsEnded(String url) throws Exception {
    return count(
        url, "SELECT count(*) FROM flows.runs WHERE parent_run_id IS NULL AND status <> 'running'");
  }

  private static List<JsonNode> read(Path events) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(events)) {
      if (!line.isBlank()) {
        out.add(json.readTree(line));
      }
    }
    return out;
  }
}
