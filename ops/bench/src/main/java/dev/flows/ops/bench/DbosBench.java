package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.StartWorkflowOptions;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.workflow.Queue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The short-runs workloads of {@link ShortRunsBench} (its f.step shapes) on DBOS Transact Java, on
 * the same Postgres in a database of its own: {@code c} client threads each start a workflow
 * ({@code DBOS.startWorkflow}) and wait for its result ({@code getResult}), DBOS on its defaults:
 * directly, then enqueued on a DBOS queue of worker concurrency C. When DBOS is absent or cannot
 * start, the report says why instead.
 */
record DbosBench(Bench.Plan plan, Pg pg, Report report) {
  static final String DATABASE = "bench_dbos";

  /**
   * How often the bench's DBOS queue looks for work. DBOS's default is {@link
   * Queue#DEFAULT_POLLING_INTERVAL} (1 s), which would make every queued run wait for the next
   * poll; the bench gives DBOS the shortest interval that still leaves its poll loop cheap.
   */
  static final Duration QUEUE_POLL = Duration.ofMillis(10);

  static final String QUEUE = "flows-bench";

  /**
   * DBOS's side of one short-runs section: its database, the commits a {@code DBOS} makes without
   * workflows, and whether it still runs (a failure is reported once and ends its side, never the
   * bench).
   */
  final class Side implements AutoCloseable {
    private final String url;
    private final long perRead;
    private final List<ShortRunsBench.Cell> direct = new ArrayList<>();
    private long fixed;
    private boolean failed;

    private Side(String url, long perRead) {
      this.url = url;
      this.perRead = perRead;
    }

    boolean running() {
      return !failed;
    }

    /**
     * One direct load of {@code shape} at {@code c} clients: its runs/s, or NaN once DBOS failed.
     */
    double measure(ShortRunsBench.Shape shape, int c, int round) {
      return attempt(
          () -> {
            ShortRunsBench.Cell cell = cell(this, shape, c, false, round);
            direct.add(cell);
            return cell.runsPerSecond();
          });
    }

    /**
     * The direct loads' rounds pooled per shape and C, then the queue mode once, into the report.
     */
    void report() {
      Map<List<Object>, List<ShortRunsBench.Cell>> byLoad = new LinkedHashMap<>();
      for (ShortRunsBench.Cell cell : direct) {
        byLoad.computeIfAbsent(List.of(cell.calls(), cell.c()), k -> new ArrayList<>()).add(cell);
      }
      byLoad.values().forEach(cells -> report.dbos(ShortRunsBench.Cell.pooled(cells)));
      for (ShortRunsBench.Shape s : shapes()) {
        for (int c : plan.concurrencies()) {
          attempt(
              () -> {
                report.dbosQueued(cell(this, s, c, true, 1));
                return 0.0;
              });
        }
      }
    }

    private double attempt(java.util.concurrent.Callable<Double> load) {
      if (failed) {
        return Double.NaN;
      }
      try {
        return load.call();
      } catch (Exception | LinkageError e) {
        skipped(e);
        failed = true;
        return Double.NaN;
      }
    }

    @Override
    public void close() throws Exception {
      pg.drop(DATABASE);
    }
  }

  /** The f.step shapes of the short runs: the ones DBOS has a workflow for. */
  List<ShortRunsBench.Shape> shapes() {
    return ShortRunsBench.shapes(plan.mode()).stream()
        .filter(s -> !s.mcp() && !s.startedElsewhere())
        .toList();
  }

  /**
   * A fresh database, every shape warmed up on one {@code DBOS} as the engine's are, the fixed
   * commits counted; empty (and the report says why) when DBOS cannot start.
   */
  Optional<Side> open() throws Exception {
    log("short runs on DBOS Transact " + version());
    String url = pg.fresh(DATABASE, false);
    Side side = new Side(url, ClientLoad.perRead(pg, url));
    try {
      int warmC = Math.min(4, plan.concurrencies().getLast());
      try (Dbos d = Dbos.launch(url)) {
        for (ShortRunsBench.Shape s : shapes()) {
          Runs.warmUp(
              plan.warmupSeconds(),
              () -> ClientLoad.run(warmC, 2 * warmC, "warm", d.client(s.calls())));
        }
      }
      side.fixed = ClientLoad.commitsOver(pg, url, side.perRead, () -> Dbos.launch(url).close());
      return Optional.of(side);
    } catch (Exception | LinkageError e) {
      skipped(e);
      side.close();
      return Optional.empty();
    }
  }

  /** The baseline is optional: its absence is reported, never fatal to the bench. */
  private void skipped(Throwable e) {
    String why =
        (e.getClass().getSimpleName() + ": " + e.getMessage()).lines().findFirst().orElse("");
    log("  dbos skipped: " + why);
    report.dbosSkipped(why);
  }

  private static String version() {
    try {
      return DBOS.version();
    } catch (LinkageError e) {
      return "(absent)";
    }
  }

  /** DBOS as its README assembles it, on its defaults, with the bench's workflow registered. */
  private record Dbos(DBOS dbos, DbosFlows.Steps steps, Optional<Queue> queue)
      implements AutoCloseable {
    static Dbos launch(String url) {
      return launch(url, Optional.empty());
    }

    /** With {@code queue}: runs are enqueued on a queue of that worker concurrency. */
    static Dbos launch(String url, Optional<Integer> queue) {
      DBOSConfig config = DBOSConfig.defaults("flows-bench").withDatabaseUrl(withoutQuery(url));
      Optional<String> user = param(url, "user");
      Optional<String> password = param(url, "password");
      if (user.isPresent()) {
        config = config.withDbUser(user.get());
      }
      // DBOS requires a password even where the server asks for none (trust).
      config = config.withDbPassword(password.orElse(""));
      DBOS dbos = new DBOS(config);
      try {
        DbosFlows.Steps steps =
            dbos.registerProxy(DbosFlows.Steps.class, new DbosFlows.StepsImpl(dbos));
        Optional<Queue> q =
            queue.map(
                c -> new Queue(QUEUE).withWorkerConcurrency(c).withPollingInterval(QUEUE_POLL));
        q.ifPresent(dbos::registerQueue);
        dbos.launch();
        return new Dbos(dbos, steps, q);
      } catch (RuntimeException e) {
        dbos.close();
        throw e;
      }
    }

    ClientLoad.Client client(int n) {
      return id -> {
        var handle =
            queue.isPresent()
                ? dbos.startWorkflow(
                    () -> steps.steps(n), new StartWorkflowOptions().withQueue(queue.get()))
                : dbos.startWorkflow(() -> steps.steps(n));
        handle.getResult();
        return handle.workflowId();
      };
    }

    @Override
    public void close() {
      dbos.close();
    }
  }

  /** One load: C clients on DBOS, each run started directly or enqueued ({@code queued}). */
  private ShortRunsBench.Cell cell(
      Side side, ShortRunsBench.Shape s, int c, boolean queued, int round) throws Exception {
    String url = side.url;
    Optional<Integer> queue = queued ? Optional.of(c) : Optional.empty();
    ClientLoad.Counted counted =
        new ClientLoad.Database(pg, url, side.perRead)
            .measure(
                side.fixed,
                plan.mode(),
                c,
                (queued ? "q" : "m") + round + "-",
                () -> {
                  Dbos d = Dbos.launch(url, queue);
                  return new ClientLoad.Opened(d.client(s.calls()), d);
                });
    ClientLoad.Load load = counted.load();
    double perRun = counted.commitsPerRun();
    log(
        "  round "
            + round
            + " dbos "
            + (queued ? "queued " : "")
            + s.label()
            + " c="
            + c
            + " "
            + (int) load.runsPerSecond()
            + " runs/s, "
            + Tables.f1(perRun)
            + " commits/run, "
            + Tables.f1(counted.writesPerRun())
            + " writes/run");
    return new ShortRunsBench.Cell(
        s.label(),
        s.calls(),
        c,
        load.samples().size(),
        load.unanswered(),
        load.seconds(),
        perRun,
        List.of(load.total()));
  }

  private static String withoutQuery(String url) {
    int q = url.indexOf('?');
    return q < 0 ? url : url.substring(0, q);
  }

  private static Optional<String> param(String url, String name) {
    int q = url.indexOf('?');
    if (q < 0) {
      return Optional.empty();
    }
    for (String kv : url.substring(q + 1).split("&")) {
      int eq = kv.indexOf('=');
      if (eq > 0 && kv.substring(0, eq).equals(name)) {
        return Optional.of(
            java.net.URLDecoder.decode(
                kv.substring(eq + 1), java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    return Optional.empty();
  }
}
