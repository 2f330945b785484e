package dev.flows.ops.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * {@code ops/chaos/run}: the {@link ChaosLoad} on several worker JVMs over a Postgres of its own,
 * while N random faults are injected; then the invariants of {@link ChaosChecks}. Loopback only;
 * every loop is bounded. Exit status: 0 with no violation, 1 with violations, 2 when the harness
 * itself could not run.
 */
public final class ChaosMain {
  private static final String DATABASE = "chaos";

  /** How long a task-call kill waits for a task in flight with a live owner. */
  private static final java.time.Duration TASK_OWNER_WAIT = java.time.Duration.ofSeconds(15);

  /** How long it waits for an open attempt of a task's call before taking any owner. */
  private static final java.time.Duration TASK_OWNER_PREFER_OPEN = java.time.Duration.ofMillis(500);

  private final ChaosConfig config;
  private final Random random;
  private final LocalPostgres pg;
  private final String url;
  private final ChaosLoad load;
  private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
  private final List<Fault> kinds;
  private int taskKillsOpen;
  private int taskKillsMissed;

  private ChaosMain(ChaosConfig config, LocalPostgres pg) {
    this.config = config;
    this.random = new Random(config.seed());
    this.pg = pg;
    this.url = pg.jdbcUrl(DATABASE);
    this.load = new ChaosLoad(config, url);
    this.kinds = List.copyOf(java.util.EnumSet.copyOf(config.faults()));
  }

  public static void main(String[] args) throws Exception {
    ChaosConfig config;
    try {
      config = parse(args);
    } catch (IllegalArgumentException e) {
      System.out.println("chaos: " + e.getMessage());
      System.exit(2);
      return;
    }
    System.out.printf(
        "chaos: %d iterations, seed %d, %d workers, lease %d ms, faults %s, work dir %s%n",
        config.iterations(),
        config.seed(),
        config.workers(),
        config.lease().toMillis(),
        config.faults().stream().map(Fault::flag).sorted().toList(),
        config.workDir());
    int status;
    try (LocalPostgres pg = LocalPostgres.initAndStart(config)) {
      ChaosMain chaos = new ChaosMain(config, pg);
      // Whatever happens to this JVM, no worker (nor its MCP servers) outlives it.
      Runtime.getRuntime().addShutdownHook(new Thread(chaos.load::killWorkers));
      try {
        status = chaos.run();
      } finally {
        chaos.load.killWorkers();
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
        case "--faults" -> c = c.withFaults(Fault.parse(value));
        case "--minutes" ->
            c = c.withFaultsWithin(java.time.Duration.ofMinutes(Long.parseLong(value)));
        default ->
            throw new IllegalArgumentException(
                "usage: ops/chaos/run [--iterations N] [--seed S] [--workers W] [--faults "
                    + Fault.flags()
                    + "] [--minutes M]; got "
                    + args[i]);
      }
      i++;
    }
    return c;
  }

  private int run() throws Exception {
    long t0 = System.nanoTime();
    try (Connection c = DriverManager.getConnection(pg.adminUrl());
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + DATABASE);
    }
    ChaosLoad.prepareDatabase(url);
    load.start();
    List<JournalSnapshot> snapshots = new ArrayList<>();
    Thread.sleep(config.warmUp().toMillis());
    int every = Math.max(1, config.iterations() / config.snapshots());
    int done = 0;
    for (int i = 1; i <= config.iterations(); i++) {
      if (config.faultsWithin().filter(d -> System.nanoTime() - t0 >= d.toNanos()).isPresent()) {
        System.out.printf("  --minutes passed after %d iterations%n", done);
        break;
      }
      done = i;
      long gap =
          config.minFaultGap().toMillis()
              + (long)
                  (random.nextDouble()
                      * (config.maxFaultGap().toMillis() - config.minFaultGap().toMillis()));
      Thread.sleep(gap);
      load.replaceDeadWorkers();
      inject().ifPresent(f -> injected.merge(f, 1, Integer::sum));
      if (i % every == 0) {
        load.snapshot().ifPresent(snapshots::add);
      }
      if (i % 10 == 0 || i == config.iterations()) {
        System.out.printf(
            "  iteration %d/%d: %s; %d runs admitted%n",
            i, config.iterations(), injected, load.admitted());
      }
    }
    ChaosLoad.Outcome o = load.finish(snapshots, checks -> checks.tasksHit(load.tasksHit()));
    int faults = injected.values().stream().mapToInt(Integer::intValue).sum();
    System.out.println("chaos: results");
    System.out.printf("  iterations: %d of %d%n", done, config.iterations());
    for (Fault f : Fault.values()) {
      System.out.printf("  faults injected, %s: %d%n", f.label(), injected.getOrDefault(f, 0));
    }
    System.out.printf(
        "  task-call kills with an attempt of the call open: %d (others between its polls)%n",
        taskKillsOpen);
    System.out.printf("  task-call kills that found no task in flight: %d%n", taskKillsMissed);
    load.printOutcome(o, t0);
    int violations = o.checks().violations.size();
    System.out.printf(
        "chaos: %d faults, %d runs, %d violations%n", faults, load.admitted(), violations);
    return violations == 0 ? 0 : 1;
  }

  /** Injects a fault of a kind drawn from the run's; empty when it found nothing to hit. */
  private Optional<Fault> inject() throws Exception {
    Fault f = kinds.get(random.nextInt(kinds.size()));
    if (f == Fault.TASK_CALL_WORKER_SIGKILL) {
      // All but one ready: the replacement of the last victim may still be starting.
      load.awaitWorkersReady(Math.max(1, load.workerCount() - 1), config.processTimeout());
      Optional<ChaosLoad.TaskOwner> owner = load.taskOwner(TASK_OWNER_WAIT, TASK_OWNER_PREFER_OPEN);
      if (owner.isEmpty()) {
        taskKillsMissed++;
        return Optional.empty();
      }
      if (owner.get().open()) {
        taskKillsOpen++;
      }
      load.killWorker(owner.get().worker());
      return Optional.of(f);
    }
    if (f == Fault.MCP_SERVER_SIGKILL) {
      List<ProcessHandle> servers = load.mcpServers();
      if (servers.isEmpty()) {
        // No worker has a server child at this moment (all just restarted): kill a worker instead.
        f = Fault.WORKER_SIGKILL;
      } else {
        ProcessHandle victim = servers.get(random.nextInt(servers.size()));
        victim.destroyForcibly();
        victim.onExit().get(config.processTimeout().toSeconds(), TimeUnit.SECONDS);
        return Optional.of(f);
      }
    }
    switch (f) {
      case WORKER_SIGKILL -> load.killWorker(random.nextInt(load.workerCount()));
      case TERMINATE_BACKENDS -> {
        try (Connection c = DriverManager.getConnection(pg.adminUrl());
            Statement st = c.createStatement()) {
          st.execute(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                  + " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'");
        }
      }
      case POSTGRES_RESTART -> pg.restart();
      case MCP_SERVER_SIGKILL, TASK_CALL_WORKER_SIGKILL ->
          throw new IllegalStateException("handled above");
    }
    return Optional.of(f);
  }
}
