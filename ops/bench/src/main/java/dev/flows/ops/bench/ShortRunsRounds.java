package dev.flows.ops.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The sections {@code shortruns} and {@code dbos} together: after both sides' warm-up, each f.step
 * load (shape and C) runs on this engine and on DBOS (direct) in turn, for {@link #rounds} rounds,
 * the side that goes first alternating from one load and one round to the next; the load average, a
 * bare commit's latency and each side's JIT and GC time are kept per round, so a round that met a
 * loaded minute or a slow disk shows as such, and the medians are over rounds. This engine's other
 * shapes (MCP, started without a worker) and DBOS's queue mode run once, after the rounds.
 */
record ShortRunsRounds(Bench.Plan plan, Pg pg, Report report, boolean engine, boolean dbos)
    implements Section {
  /** Overrides the number of rounds (default: 3 full, 2 quick, 1 smoke). */
  static final String ROUNDS_ENV = "FLOWS_BENCH_SHORTRUNS_ROUNDS";

  private static final String PROBE_DATABASE = "bench_short_probe";

  /** How long the bare INSERT+COMMIT that samples the disk runs before each load's pair. */
  private static double probeSeconds(String mode) {
    return mode.equals("smoke") ? 0.05 : 0.5;
  }

  /** The rounds of {@code mode}, or {@code override} (the environment's) when given. */
  static int rounds(String mode, Optional<String> override) {
    if (override.isPresent()) {
      try {
        int n = Integer.parseInt(override.get().trim());
        if (n >= 1) {
          return n;
        }
      } catch (NumberFormatException e) {
        // Refused below with the same message as a number below 1.
      }
      throw new IllegalArgumentException(
          ROUNDS_ENV + " takes a whole number of rounds, 1 or more; got '" + override.get() + "'");
    }
    return switch (mode) {
      case "smoke" -> 1;
      case "quick" -> 2;
      default -> 3;
    };
  }

  @Override
  public void run() throws Exception {
    int rounds = rounds(plan.mode(), Optional.ofNullable(System.getenv(ROUNDS_ENV)));
    ShortRunsBench ours = new ShortRunsBench(plan, pg, report);
    DbosBench theirs = new DbosBench(plan, pg, report);
    try (Closer sides = new Closer()) {
      Optional<ShortRunsBench.Side> e =
          engine ? Optional.of(sides.add(ours.open())) : Optional.empty();
      Optional<DbosBench.Side> d = dbos ? theirs.open().map(sides::add) : Optional.empty();
      if (e.isEmpty() && d.isEmpty()) {
        return;
      }
      // Its own database: the probe's commits must not reach either side's counters.
      String probe = pg.fresh(PROBE_DATABASE, false);
      sides.add(() -> pg.drop(PROBE_DATABASE));
      Baseline.prepare(probe, 0);
      for (int round = 1; round <= rounds; round++) {
        int load = 0;
        for (ShortRunsBench.Shape shape : theirs.shapes()) {
          for (int c : plan.concurrencies()) {
            boolean engineFirst = (round + load) % 2 == 1;
            load++;
            pair(e, d, probe, shape, c, round, engineFirst);
          }
        }
      }
      if (e.isPresent()) {
        for (ShortRunsBench.Shape shape : ShortRunsBench.shapes(plan.mode())) {
          if (!theirs.shapes().contains(shape)) {
            for (int c : plan.concurrencies()) {
              e.get().measure(shape, c, 1);
            }
          }
        }
        e.get().report();
      }
      if (d.isPresent()) {
        d.get().report();
      }
    }
  }

  /**
   * One load's pair in one round: the machine's load and a bare commit first, then both sides in
   * the given order, into the report as one round.
   */
  private void pair(
      Optional<ShortRunsBench.Side> e,
      Optional<DbosBench.Side> d,
      String probe,
      ShortRunsBench.Shape shape,
      int c,
      int round,
      boolean engineFirst)
      throws Exception {
    double loadAverage = loadAverage();
    double commitP50 = Baseline.inserts(probe, 1, probeSeconds(plan.mode())).latency().p50();
    Measured ourRun = new Measured(Double.NaN, JvmWork.NONE);
    Measured theirRun = new Measured(Double.NaN, JvmWork.NONE);
    for (boolean ourTurn : List.of(engineFirst, !engineFirst)) {
      if (ourTurn && e.isPresent()) {
        ourRun = Measured.of(() -> e.get().measure(shape, c, round));
      } else if (!ourTurn && d.isPresent() && d.get().running()) {
        theirRun = Measured.of(() -> d.get().measure(shape, c, round));
      }
    }
    report.shortRunsRound(
        new Report.ShortRunsRound(
            shape.label(),
            shape.calls(),
            c,
            round,
            engineFirst,
            ourRun.rate(),
            theirRun.rate(),
            loadAverage,
            commitP50,
            ourRun.work(),
            theirRun.work()));
  }

  /**
   * The JIT's and the garbage collectors' time (ms) and the classes loaded over one load, the JVM's
   * own counters: a side still being compiled, or making new classes at every start, shows here.
   */
  record JvmWork(double jitMs, double gcMs, double classesLoaded) {
    static final JvmWork NONE = new JvmWork(Double.NaN, Double.NaN, Double.NaN);

    static JvmWork now() {
      var jit = ManagementFactory.getCompilationMXBean();
      long gc = 0;
      for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
        gc += Math.max(0, b.getCollectionTime());
      }
      return new JvmWork(
          jit == null ? Double.NaN : jit.getTotalCompilationTime(),
          gc,
          ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount());
    }

    JvmWork since(JvmWork before) {
      return new JvmWork(
          jitMs - before.jitMs, gcMs - before.gcMs, classesLoaded - before.classesLoaded);
    }
  }

  /** One side's load in a round: its runs/s and the JVM's work during it. */
  private record Measured(double rate, JvmWork work) {
    static Measured of(java.util.concurrent.Callable<Double> load) throws Exception {
      JvmWork before = JvmWork.now();
      double rate = load.call();
      return new Measured(rate, JvmWork.now().since(before));
    }
  }

  /** The one-minute load average, NaN where the system does not give it. */
  private static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (Exception e) {
      return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
  }

  /** Closes what was opened, last first. */
  private static final class Closer implements AutoCloseable {
    private final java.util.Deque<AutoCloseable> open = new java.util.ArrayDeque<>();

    <T extends AutoCloseable> T add(T t) {
      open.push(t);
      return t;
    }

    @Override
    public void close() throws Exception {
      Exception first = null;
      while (!open.isEmpty()) {
        try {
          open.pop().close();
        } catch (Exception x) {
          if (first == null) {
            first = x;
          } else {
            first.addSuppressed(x);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }
}
