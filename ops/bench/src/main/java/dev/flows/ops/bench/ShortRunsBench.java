package dev.flows.ops.bench;

import static dev.flows.ops.bench.Bench.log;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.embed.Flows;
import dev.flows.embed.FlowsBuilder;
import dev.flows.embed.ResultTimeoutException;
import dev.flows.embed.StartOptions;
import dev.flows.sdk.Flow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Short runs through the embedding API as an application makes them: {@code c} client threads each
 * start a run ({@link Flows#start}) and wait for its result ({@code RunHandle.result}), on product
 * defaults with worker capacity {@code c}; runs/s, commits per run and where each run's time goes.
 */
record ShortRunsBench(Bench.Plan plan, Pg pg, Report report) {
  /**
   * A workload: runs of one flow, each {@code calls} steps or tool calls long. {@code
   * startedElsewhere}: the clients start runs through a {@code Flows} without a worker and a second
   * {@code Flows} (its worker of capacity C) claims them, so the claim path (NOTIFY, claim query)
   * is measured; otherwise the clients' {@code Flows} runs the worker and each run is admitted
   * already claimed by it.
   */
  record Shape(String label, int calls, Flow flow, boolean mcp, boolean startedElsewhere) {
    Shape(String label, int calls, Flow flow, boolean mcp) {
      this(label, calls, flow, mcp, false);
    }

    ObjectNode input(String id) {
      return mcp
          ? Runs.mcpInput(BenchFlows.STDIO, calls).put("id", id)
          : Runs.stepsInput(id, calls);
    }
  }

  static final List<Shape> SHAPES =
      List.of(
          new Shape("1 f.step", 1, BenchFlows.STEPS, false),
          new Shape("10 f.step", 10, BenchFlows.STEPS, false),
          new Shape("50 f.step", 50, BenchFlows.STEPS, false),
          new Shape("3 f.mcp (stdio)", 3, BenchFlows.MCP, true),
          new Shape("10 f.step, started without a worker", 10, BenchFlows.STEPS, false, true));

  /** The smoke test runs the shortest step shape and the MCP shape: both paths, in seconds. */
  static List<Shape> shapes(String mode) {
    return mode.equals("smoke") ? List.of(SHAPES.get(0), SHAPES.get(3)) : SHAPES;
  }

  /** Where a run's time goes, in order; {@link Cell#stages} holds them after the total. */
  static final List<String> STAGES =
      List.of(
          "start → admitted",
          "admitted → claimed",
          "claimed → body entered",
          "body entered → last step",
          "last step → run ended",
          "run ended → result seen");

  /**
   * Where the time goes of a run whose body ran before its admission and ended first, admitted with
   * its end in one statement ({@code created_at} = {@code completed_at}); {@link Cell#bodyFirst}
   * holds them.
   */
  static final List<String> BODY_FIRST_STAGES =
      List.of(
          "start → body entered",
          "body entered → body returned",
          "body returned → admitted with its end",
          "admitted → start returned",
          "start returned → result seen");

  /** When {@link Flows#start} returned to the client (System.nanoTime), by the run's input id. */
  static final Map<String, Long> START_RETURNED = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * One workload at one concurrency: {@code stages} is start → result seen (every run), then each
   * of {@link #STAGES} over the runs admitted before their body ran (empty when the engine journals
   * no such times); {@code bodyFirst} each of {@link #BODY_FIRST_STAGES} over the runs admitted
   * with their end, {@code admittedFirst} and {@code admittedWithEnd} count those runs. {@code
   * roundRates}: the runs/s of each round when the cell pools several (empty for one load).
   */
  record Cell(
      String shape,
      int calls,
      int c,
      int runs,
      long unanswered,
      double seconds,
      double commitsPerRun,
      List<Stats> stages,
      long admittedFirst,
      long admittedWithEnd,
      List<Stats> bodyFirst,
      List<Double> roundRates) {
    Cell(
        String shape,
        int calls,
        int c,
        int runs,
        long unanswered,
        double seconds,
        double commitsPerRun,
        List<Stats> stages,
        long admittedFirst,
        long admittedWithEnd,
        List<Stats> bodyFirst) {
      this(
          shape,
          calls,
          c,
          runs,
          unanswered,
          seconds,
          commitsPerRun,
          stages,
          admittedFirst,
          admittedWithEnd,
          bodyFirst,
          List.of());
    }

    /** A cell without the per-path breakdown (DBOS's). */
    Cell(
        String shape,
        int calls,
        int c,
        int runs,
        long unanswered,
        double seconds,
        double commitsPerRun,
        List<Stats> stages) {
      this(shape, calls, c, runs, unanswered, seconds, commitsPerRun, stages, 0, 0, List.of());
    }

    /**
     * The loads of one shape and C over several rounds as one cell: runs/s is the median of the
     * rounds' rates (a round that met a loaded minute moves it least), latencies and stages are
     * over every round's runs, commits per run is weighted by runs.
     */
    static Cell pooled(List<Cell> rounds) {
      if (rounds.size() == 1) {
        return rounds.getFirst();
      }
      Cell first = rounds.getFirst();
      int runs = rounds.stream().mapToInt(Cell::runs).sum();
      return new Cell(
          first.shape(),
          first.calls(),
          first.c(),
          runs,
          rounds.stream().mapToLong(Cell::unanswered).sum(),
          rounds.stream().mapToDouble(Cell::seconds).sum(),
          rounds.stream().mapToDouble(x -> x.commitsPerRun() * x.runs()).sum() / Math.max(1, runs),
          merged(rounds, Cell::stages),
          rounds.stream().mapToLong(Cell::admittedFirst).sum(),
          rounds.stream().mapToLong(Cell::admittedWithEnd).sum(),
          merged(rounds, Cell::bodyFirst),
          rounds.stream().map(Cell::runsPerSecond).toList());
    }

    private static List<Stats> merged(
        List<Cell> rounds, java.util.function.Function<Cell, List<Stats>> of) {
      int n = of.apply(rounds.getFirst()).size();
      List<Stats> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int at = i;
        out.add(
            Stats.of(
                rounds.stream().flatMap(x -> of.apply(x).get(at).sortedNanos().stream()).toList()));
      }
      return out;
    }

    /** Runs per second: the median of the rounds' when pooled, else this load's. */
    double runsPerSecond() {
      return roundRates.isEmpty() ? runs / seconds : median(roundRates);
    }

    Stats total() {
      return stages.getFirst();
    }
  }

  /** The median of {@code values} (the mean of the middle two when their number is even). */
  static double median(List<Double> values) {
    List<Double> s = values.stream().sorted().toList();
    int n = s.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  /**
   * This engine's side of one short-runs section: its database, the MCP servers, the commits a
   * {@code Flows} makes without runs at each C, and every load measured, until {@link #report}.
   */
  final class Side implements AutoCloseable {
    private final String url;
    private final long perRead;
    private final McpServers servers;
    private final Map<Integer, Long> fixed = new HashMap<>();
    private final List<Measured> measured = new ArrayList<>();

    private Side(String url, long perRead, McpServers servers) {
      this.url = url;
      this.perRead = perRead;
      this.servers = servers;
    }

    /** One load of {@code shape} at {@code c} clients; {@code round} keeps its run ids apart. */
    double measure(Shape shape, int c, int round) throws Exception {
      Measured m = ShortRunsBench.this.measure(this, shape, c, round);
      measured.add(m);
      log(
          "  round "
              + round
              + " "
              + shape.label()
              + " c="
              + c
              + " "
              + (int) m.load().runsPerSecond()
              + " runs/s, "
              + Tables.f1(m.commitsPerRun())
              + " commits/run, "
              + Tables.f1(m.writesPerRun())
              + " writes/run");
      return m.load().runsPerSecond();
    }

    /** Every load's cell, the rounds of one shape and C pooled into one, into the report. */
    void report() throws Exception {
      List<String> ids = new ArrayList<>();
      measured.forEach(m -> m.load().samples().forEach(x -> ids.add(x.runId())));
      Map<String, long[]> times = JournalTimes.of(url, ids);
      Map<List<Object>, List<Cell>> byLoad = new java.util.LinkedHashMap<>();
      for (Measured m : measured) {
        byLoad
            .computeIfAbsent(List.of(m.shape().label(), m.c()), k -> new ArrayList<>())
            .add(m.cell(times));
      }
      byLoad.values().forEach(cells -> report.shortRun(Cell.pooled(cells)));
    }

    @Override
    public void close() throws Exception {
      try (servers) {
        pg.drop("bench_short");
      }
    }
  }

  /** A fresh database, the MCP servers, every shape warmed up, each C's fixed commits counted. */
  Side open() throws Exception {
    log("short runs through the embedding API");
    String url = pg.fresh("bench_short", true);
    long perRead = ClientLoad.perRead(pg, url);
    Side side = new Side(url, perRead, McpServers.start());
    try {
      warmUp(url, side.servers);
      for (int c : plan.concurrencies()) {
        side.fixed.put(
            c,
            ClientLoad.commitsOver(
                pg,
                url,
                perRead,
                () -> flows(url, c, side.servers, List.of(SHAPES.getFirst())).close()));
      }
      return side;
    } catch (Exception | Error e) {
      side.close();
      throw e;
    }
  }

  /** A Flows as an application builds it: product defaults, a worker of capacity {@code c}. */
  private static Flows flows(String url, int c, McpServers servers, List<Shape> shapes) {
    return flows(url, Optional.of(c), servers, shapes);
  }

  /** As above; with no capacity, an admission-only {@code Flows} (no worker). */
  private static Flows flows(
      String url, Optional<Integer> capacity, McpServers servers, List<Shape> shapes) {
    FlowsBuilder b = Flows.builder().jdbcUrl(url);
    // Only so the benchmark's own stops are quick; it never changes a measurement.
    capacity.ifPresent(c -> b.worker(w -> w.capacity(c).stopGrace(Engines.STOP_GRACE)));
    shapes.stream().map(Shape::flow).distinct().forEach(b::register);
    if (shapes.stream().anyMatch(Shape::mcp)) {
      b.mcpServer(servers.embedded(BenchFlows.STDIO)).mcpServer(servers.embedded(BenchFlows.HTTP));
    }
    return b.build();
  }

  private ClientLoad.Client client(Flows flows, Shape shape) {
    Duration timeout = ClientLoad.resultTimeout(plan.mode());
    return id -> {
      var handle = flows.start(shape.flow().header().name(), shape.input(id), StartOptions.none());
      START_RETURNED.put(id, System.nanoTime());
      try {
        handle.result(timeout);
      } catch (ResultTimeoutException e) {
        throw new ClientLoad.Unanswered(handle.runId().value());
      }
      return handle.runId().value();
    };
  }

  /** JIT warm-up of every shape's path, unmeasured, before the first measured load. */
  private void warmUp(String url, McpServers servers) throws Exception {
    int c = Math.min(WARM_UP_CLIENTS, plan.concurrencies().getLast());
    List<Shape> shapes = shapes(plan.mode());
    try (Flows flows = flows(url, c, servers, shapes)) {
      for (Shape shape : shapes) {
        Runs.warmUp(
            plan.warmupSeconds(),
            () -> ClientLoad.run(c, 2 * c, "warm-" + shape.calls() + "-", client(flows, shape)));
      }
    }
  }

  /** Client threads of the warm-up: the JIT needs the paths run, not the concurrency. */
  private static final int WARM_UP_CLIENTS = 4;

  /** One load as measured, before the journal's times are read. */
  private record Measured(
      Shape shape,
      int c,
      ClientLoad.Load load,
      double commitsPerRun,
      double writesPerRun,
      Map<String, Long> bodyEntered,
      Map<String, Long> bodyReturned,
      Map<String, Long> startReturned) {
    Cell cell(Map<String, long[]> times) {
      List<List<Long>> stages = lists(STAGES.size() + 1);
      List<List<Long>> bodyFirst = lists(BODY_FIRST_STAGES.size());
      long admittedFirst = 0;
      long admittedWithEnd = 0;
      for (ClientLoad.Sample s : load.samples()) {
        stages.get(0).add(s.totalNanos());
        long[] t = times.get(s.runId());
        Long body = bodyEntered.get(s.id());
        if (t == null || body == null) {
          continue;
        }
        // Caller, body and journal times on one clock (the database's is this machine's).
        long entered = WALL.of(body);
        long[] at;
        List<List<Long>> into;
        if (t[0] < entered) {
          admittedFirst++;
          at = new long[] {WALL.of(s.startNanos()), t[0], t[1], entered, t[2], t[3]};
          into = stages.subList(1, stages.size());
        } else if (t[0] == t[3]) {
          Long returned = bodyReturned.get(s.id());
          Long started = startReturned.get(s.id());
          if (returned == null || started == null) {
            continue;
          }
          admittedWithEnd++;
          at =
              new long[] {
                WALL.of(s.startNanos()), entered, WALL.of(returned), t[0], WALL.of(started)
              };
          into = bodyFirst;
        } else {
          // Body first, admitted before its end (it outlasted the delay): neither table's path.
          continue;
        }
        long[] path = java.util.Arrays.copyOf(at, at.length + 1);
        path[at.length] = WALL.of(s.resultNanos());
        for (int i = 1; i < path.length; i++) {
          into.get(i - 1).add(path[i] - path[i - 1]);
        }
      }
      return new Cell(
          shape.label(),
          shape.calls(),
          c,
          load.samples().size(),
          load.unanswered(),
          load.seconds(),
          commitsPerRun,
          stages.stream().map(Stats::of).toList(),
          admittedFirst,
          admittedWithEnd,
          bodyFirst.stream().map(Stats::of).toList());
    }

    private static List<List<Long>> lists(int n) {
      List<List<Long>> l = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        l.add(new ArrayList<>());
      }
      return l;
    }
  }

  private Measured measure(Side side, Shape shape, int c, int round) throws Exception {
    String url = side.url;
    McpServers servers = side.servers;
    BenchFlows.FIRST_DISPATCH.clear();
    BenchFlows.BODY_RETURNED.clear();
    START_RETURNED.clear();
    String prefix =
        "r"
            + round
            + "m"
            + shape.calls()
            + (shape.mcp() ? "mcp" : "")
            + (shape.startedElsewhere() ? "x" : "")
            + "c"
            + c
            + "-";
    ClientLoad.Counted counted =
        new ClientLoad.Database(pg, url, side.perRead)
            .measure(
                side.fixed.get(c),
                plan.mode(),
                c,
                prefix,
                () -> {
                  if (!shape.startedElsewhere()) {
                    Flows flows = flows(url, c, servers, List.of(shape));
                    return new ClientLoad.Opened(client(flows, shape), flows);
                  }
                  Flows worker = flows(url, c, servers, List.of(shape));
                  Flows starter = flows(url, Optional.empty(), servers, List.of(shape));
                  return new ClientLoad.Opened(
                      client(starter, shape),
                      () -> {
                        try (worker) {
                          starter.close();
                        }
                      });
                });
    return new Measured(
        shape,
        c,
        counted.load(),
        counted.commitsPerRun(),
        counted.writesPerRun(),
        Map.copyOf(BenchFlows.FIRST_DISPATCH),
        Map.copyOf(BenchFlows.BODY_RETURNED),
        Map.copyOf(START_RETURNED));
  }

  /** {@link System#nanoTime} as epoch nanoseconds, so caller and journal times subtract. */
  private static final Wall WALL = Wall.now();

  private record Wall(long offset) {
    static Wall now() {
      Instant i = Instant.now();
      long nanos = System.nanoTime();
      return new Wall(i.getEpochSecond() * 1_000_000_000L + i.getNano() - nanos);
    }

    long of(long nanoTime) {
      return nanoTime + offset;
    }
  }

  static Optional<Cell> find(List<Cell> cells, int calls, int c) {
    return cells.stream()
        .filter(
            x ->
                x.calls() == calls
                    && x.c() == c
                    && !x.shape().contains("mcp")
                    && !x.shape().contains("without a worker"))
        .findFirst();
  }
}
