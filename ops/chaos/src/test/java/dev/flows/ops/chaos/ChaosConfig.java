package dev.flows.ops.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Every knob of a chaos run, with named defaults. Bounded by construction: {@link #iterations}
 * faults, each after a gap drawn from [{@link #minFaultGap}, {@link #maxFaultGap}], then at most
 * {@link #drainTimeout} for the runs to settle.
 */
public record ChaosConfig(
    int iterations,
    long seed,
    int workers,
    int inFlight,
    Duration lease,
    Duration minFaultGap,
    Duration maxFaultGap,
    Duration warmUp,
    Duration drainTimeout,
    Duration processTimeout,
    Duration loadPollInterval,
    int snapshots,
    Path postgresBin,
    String postgresUser,
    Path workDir,
    Set<Fault> faults,
    Optional<Duration> faultsWithin) {

  public ChaosConfig {
    faults = Set.copyOf(faults);
    if (faults.isEmpty()) {
      throw new IllegalArgumentException("a chaos run needs at least one fault kind");
    }
  }

  public static final int DEFAULT_ITERATIONS = 20;
  public static final int DEFAULT_WORKERS = 3;
  public static final int DEFAULT_IN_FLIGHT = 8;
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(3);
  public static final Duration DEFAULT_MIN_FAULT_GAP = Duration.ofMillis(800);
  public static final Duration DEFAULT_MAX_FAULT_GAP = Duration.ofMillis(2_500);
  public static final Duration DEFAULT_WARM_UP = Duration.ofSeconds(5);
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofMinutes(3);
  public static final Duration DEFAULT_PROCESS_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_LOAD_POLL_INTERVAL = Duration.ofMillis(250);
  public static final int DEFAULT_SNAPSHOTS = 4;
  public static final Path DEFAULT_POSTGRES_BIN = Path.of("/usr/lib/postgresql/15/bin");
  public static final String DEFAULT_POSTGRES_USER = "postgres";

  public static ChaosConfig defaults(Path workDir) {
    return new ChaosConfig(
        DEFAULT_ITERATIONS,
        System.nanoTime(),
        DEFAULT_WORKERS,
        DEFAULT_IN_FLIGHT,
        DEFAULT_LEASE,
        DEFAULT_MIN_FAULT_GAP,
        DEFAULT_MAX_FAULT_GAP,
        DEFAULT_WARM_UP,
        DEFAULT_DRAIN_TIMEOUT,
        DEFAULT_PROCESS_TIMEOUT,
        DEFAULT_LOAD_POLL_INTERVAL,
        DEFAULT_SNAPSHOTS,
        DEFAULT_POSTGRES_BIN,
        DEFAULT_POSTGRES_USER,
        workDir,
        EnumSet.allOf(Fault.class),
        Optional.empty());
  }

  public ChaosConfig withIterations(int n) {
    return with(n, seed, workers);
  }

  public ChaosConfig withSeed(long s) {
    return with(iterations, s, workers);
  }

  public ChaosConfig withWorkers(int w) {
    return with(iterations, seed, w);
  }

  public ChaosConfig withLease(Duration l) {
    return with(iterations, seed, workers, l);
  }

  /** The fault kinds a run draws from (each equally likely). */
  public ChaosConfig withFaults(Set<Fault> f) {
    return new ChaosConfig(
        iterations,
        seed,
        workers,
        inFlight,
        lease,
        minFaultGap,
        maxFaultGap,
        warmUp,
        drainTimeout,
        processTimeout,
        loadPollInterval,
        snapshots,
        postgresBin,
        postgresUser,
        workDir,
        f,
        faultsWithin);
  }

  /**
   * A bound on the time spent injecting faults: the run stops injecting when it passes, fewer than
   * {@link #iterations} faults in, and drains and checks as always.
   */
  public ChaosConfig withFaultsWithin(Duration d) {
    return new ChaosConfig(
        iterations,
        seed,
        workers,
        inFlight,
        lease,
        minFaultGap,
        maxFaultGap,
        warmUp,
        drainTimeout,
        processTimeout,
        loadPollInterval,
        snapshots,
        postgresBin,
        postgresUser,
        workDir,
        faults,
        Optional.of(d));
  }

  private ChaosConfig with(int n, long s, int w) {
    return with(n, s, w, lease);
  }

  private ChaosConfig with(int n, long s, int w, Duration l) {
    return new ChaosConfig(
        n,
        s,
        w,
        inFlight,
        l,
        minFaultGap,
        maxFaultGap,
        warmUp,
        drainTimeout,
        processTimeout,
        loadPollInterval,
        snapshots,
        postgresBin,
        postgresUser,
        workDir,
        faults,
        faultsWithin);
  }
}
