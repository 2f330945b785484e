package dev.flows.ops.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ops/ha/drill}: the {@link ChaosLoad} on worker JVMs that reach a pg_auto_failover
 * formation ({@link PgAutoFailover}) through a multi-host URL, while the formation fails over N
 * times, alternating the death of the primary's machine (keeper and postmaster SIGKILLed) and a
 * planned {@code pg_autoctl perform switchover}; then the chaos invariants, and that no lease
 * granted before a failover was honoured past its deadline after it. Prints each failover's timings
 * and ends with {@code N violations}. Exit status: 0 with no violation, 1 with violations, 2 when
 * the harness itself could not run.
 */
public final class HaDrill {
  static final int DEFAULT_FAILOVERS = 5;

  /**
   * Longer than a failover takes, so attempts leased before one are still leased after it: the
   * lease check across failovers then judges completions instead of finding only expiries.
   */
  static final Duration DEFAULT_LEASE = Duration.ofSeconds(20);

  /** How a failover is brought about. */
  enum Kind {
    PRIMARY_SIGKILL("primary SIGKILL"),
    SWITCHOVER("planned switchover");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  /**
   * One failover as measured from the moment the old primary stopped taking writes: to the first
   * claim journaled on the new primary (journal time), and to the formation back in sync (as
   * polled, an upper bound).
   */
  record Failover(
      int number,
      Kind kind,
      String from,
      String to,
      Instant started,
      Instant oldPrimaryStopped,
      Duration toFirstClaim,
      Duration toStable) {}

  private final ChaosConfig config;
  private final int failovers;
  private final PgAutoFailover ha;
  private final String url;
  private final ChaosLoad load;
  private final List<Failover> done = new ArrayList<>();

  private HaDrill(ChaosConfig config, int failovers, PgAutoFailover ha) {
    this.config = config;
    this.failovers = failovers;
    this.ha = ha;
    this.url = ha.jdbcUrl();
    this.load = new ChaosLoad(config, url);
  }

  public static void main(String[] args) {
    System.exit(drill(args));
  }

  /** Runs the drill; answers its exit status. */
  static int drill(String[] args) {
    int failovers = DEFAULT_FAILOVERS;
    ChaosConfig config;
    try {
      config =
          ChaosConfig.defaults(Files.createTempDirectory("flows-ha-")).withLease(DEFAULT_LEASE);
      for (int i = 0; i < args.length; i += 2) {
        String value = i + 1 < args.length ? args[i + 1] : "";
        switch (args[i]) {
          case "--failovers" -> failovers = Integer.parseInt(value);
          case "--seed" -> config = config.withSeed(Long.parseLong(value));
          case "--workers" -> config = config.withWorkers(Integer.parseInt(value));
          case "--lease-ms" -> config = config.withLease(Duration.ofMillis(Long.parseLong(value)));
          default ->
              throw new IllegalArgumentException(
                  "usage: ops/ha/drill [--failovers N] [--seed S] [--workers W] [--lease-ms L];"
                      + " got "
                      + args[i]);
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      System.out.println("ha: " + e.getMessage());
      return 2;
    }
    System.out.printf(
        "ha: %d failovers, seed %d, %d workers, lease %d ms, work dir %s%n",
        failovers, config.seed(), config.workers(), config.lease().toMillis(), config.workDir());
    AtomicReference<Runnable> cleanup = new AtomicReference<>(() -> {});
    // Whatever happens to this JVM, no worker, keeper or postmaster outlives it.
    Thread hook = new Thread(() -> cleanup.get().run());
    Runtime.getRuntime().addShutdownHook(hook);
    int status;
    try (PgAutoFailover ha = PgAutoFailover.start(config)) {
      HaDrill drill = new HaDrill(config, failovers, ha);
      cleanup.set(
          () -> {
            drill.load.killWorkers();
            ha.close();
          });
      try {
        status = drill.run();
      } finally {
        drill.load.killWorkers();
      }
    } catch (Exception e) {
      System.out.println("ha: the harness failed: " + e);
      e.printStackTrace(System.out);
      status = 2;
    }
    Runtime.getRuntime().removeShutdownHook(hook);
    return status;
  }

  private int run() throws Exception {
    long t0 = System.nanoTime();
    System.out.println("ha: formation up; clients connect to " + url);
    ChaosLoad.prepareDatabase(url);
    load.start();
    List<JournalSnapshot> snapshots = new ArrayList<>();
    Thread.sleep(config.warmUp().toMillis());
    for (int i = 1; i <= failovers; i++) {
      Thread.sleep(config.maxFaultGap().toMillis());
      load.replaceDeadWorkers();
      Kind kind = i % 2 == 1 ? Kind.PRIMARY_SIGKILL : Kind.SWITCHOVER;
      Failover f = failover(i, kind);
      done.add(f);
      System.out.printf(
          "  failover %d/%d (%s, %s -> %s): first claim after %d ms, standby back in sync"
              + " within %d ms; %d runs admitted%n",
          i,
          failovers,
          kind.label,
          f.from(),
          f.to(),
          f.toFirstClaim().toMillis(),
          f.toStable().toMillis(),
          load.admitted());
      load.snapshot().ifPresent(snapshots::add);
    }
    List<Instant> moments = done.stream().map(Failover::oldPrimaryStopped).toList();
    ChaosLoad.Outcome o = load.finish(snapshots, checks -> checks.leasesAcrossFailovers(moments));
    System.out.println("ha: results");
    System.out.printf("  failovers: %d%n", done.size());
    for (Kind k : Kind.values()) {
      System.out.printf(
          "  failovers, %s: %d%n", k.label, done.stream().filter(f -> f.kind() == k).count());
    }
    System.out.println(
        "  | # | kind | from | to | first claim on the new primary (ms) | standby back in sync"
            + " within (ms) |");
    System.out.println("  |---|---|---|---|---|---|");
    for (Failover f : done) {
      System.out.printf(
          "  | %d | %s | %s | %s | %d | %d |%n",
          f.number(),
          f.kind().label,
          f.from(),
          f.to(),
          f.toFirstClaim().toMillis(),
          f.toStable().toMillis());
    }
    load.printOutcome(o, t0);
    int violations = o.checks().violations.size();
    System.out.printf(
        "ha: %d failovers, %d runs, %d effects confirmed%n",
        done.size(), load.admitted(), o.checks().facts.getOrDefault("effects confirmed", 0L));
    System.out.printf("%d violations%n", violations);
    return violations == 0 ? 0 : 1;
  }

  /**
   * Brings about one failover and measures it. Times count from when the old primary stopped taking
   * writes: its death, or the moment a switchover's demotion made it refuse them; a claim journaled
   * after that moment was committed on the new primary.
   */
  private Failover failover(int number, Kind kind) throws Exception {
    PgAutoFailover.Node old =
        ha.primary().orElseThrow(() -> new IOException("the formation has no primary"));
    Instant started = Instant.now();
    Instant stopped;
    switch (kind) {
      case PRIMARY_SIGKILL -> {
        ha.kill(old);
        stopped = Instant.now();
      }
      case SWITCHOVER -> {
        StopWatcher watcher = new StopWatcher(old);
        Thread t = Thread.ofPlatform().name("ha-stop-watch").start(watcher);
        try {
          ha.switchover();
        } finally {
          watcher.done = true;
          t.join();
        }
        stopped = watcher.stopped.orElse(started);
      }
      default -> throw new IllegalStateException();
    }
    PgAutoFailover.Node fresh = awaitNewPrimary(old);
    if (kind == Kind.PRIMARY_SIGKILL) {
      ha.restart(old);
    }
    Instant firstClaim = awaitFirstClaim(stopped);
    ha.awaitStable(config.drainTimeout());
    Instant stable = Instant.now();
    return new Failover(
        number,
        kind,
        old.name(),
        fresh.name(),
        started,
        stopped,
        Duration.between(stopped, firstClaim),
        Duration.between(stopped, stable));
  }

  /** Watches the old primary during a switchover for the first moment it refuses writes. */
  private static final class StopWatcher implements Runnable {
    private final PgAutoFailover.Node node;
    volatile boolean done;
    volatile Optional<Instant> stopped = Optional.empty();

    StopWatcher(PgAutoFailover.Node node) {
      this.node = node;
    }

    @Override
    public void run() {
      String direct =
          "jdbc:postgresql://127.0.0.1:"
              + node.port()
              + "/"
              + PgAutoFailover.DATABASE
              + "?user=postgres&connectTimeout=2";
      while (!done && stopped.isEmpty()) {
        try (Connection c = DriverManager.getConnection(direct);
            var st = c.createStatement();
            ResultSet rs =
                st.executeQuery(
                    "SELECT pg_is_in_recovery()"
                        + " OR current_setting('default_transaction_read_only')::boolean")) {
          rs.next();
          if (rs.getBoolean(1)) {
            stopped = Optional.of(Instant.now());
          }
        } catch (SQLException e) {
          stopped = Optional.of(Instant.now());
        }
        ChaosLoad.sleepQuietly(Duration.ofMillis(50));
      }
    }
  }

  private PgAutoFailover.Node awaitNewPrimary(PgAutoFailover.Node old) throws Exception {
    long until = System.nanoTime() + config.drainTimeout().toNanos();
    while (System.nanoTime() < until) {
      try {
        Optional<PgAutoFailover.Node> p = ha.primary();
        if (p.isPresent() && !p.get().equals(old)) {
          return p.get();
        }
      } catch (SQLException e) {
        // The monitor is busy; ask again.
      }
      ChaosLoad.sleepQuietly(Duration.ofMillis(100));
    }
    throw new IOException("no new primary within " + config.drainTimeout());
  }

  /** When the first attempt after {@code after} was journaled (claimed) by a worker. */
  private Instant awaitFirstClaim(Instant after) throws IOException {
    long until = System.nanoTime() + config.drainTimeout().toNanos();
    while (System.nanoTime() < until) {
      try (Connection c = DriverManager.getConnection(url);
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT min(at) FROM flows.journal_entries"
                      + " WHERE entry_type = 'step.attempt.started' AND at > ?")) {
        ps.setTimestamp(1, Timestamp.from(after));
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          Timestamp at = rs.getTimestamp(1);
          if (at != null) {
            return at.toInstant();
          }
        }
      } catch (SQLException e) {
        // The new primary is still being promoted.
      }
      ChaosLoad.sleepQuietly(Duration.ofMillis(100));
    }
    throw new IOException("no claim within " + config.drainTimeout() + " of the failover");
  }
}
