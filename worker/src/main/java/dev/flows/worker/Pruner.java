package dev.flows.worker;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.PruneReport;
import dev.flows.kernel.journal.PruneRequest;
import java.time.Duration;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention run by a worker process: every {@code interval} it prunes ended run trees older than
 * the period, a small batch per transaction with a pause between batches, so the rows it deletes
 * never hold up claims for long. Several workers may prune at once: a batch skips the trees another
 * holds.
 */
public final class Pruner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Pruner.class);

  /**
   * @param olderThan the retention period: trees that ended longer ago go
   * @param batchRoots most root runs (with their trees) per transaction
   * @param interval how long to sleep once nothing is left to prune
   * @param pause how long to sleep between two batches
   */
  public record Config(Duration olderThan, int batchRoots, Duration interval, Duration pause) {
    public static final int DEFAULT_BATCH_ROOTS = 100;
    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
    public static final Duration DEFAULT_PAUSE = Duration.ofMillis(50);

    public Config {
      if (olderThan.isNegative() || interval.isNegative() || interval.isZero()) {
        throw new IllegalArgumentException("retention period and interval must be positive");
      }
      if (pause.isNegative() || batchRoots < 1) {
        throw new IllegalArgumentException("pause must not be negative, batch at least 1");
      }
    }

    /** Retention of {@code olderThan} with the default batch, interval and pause. */
    public static Config of(Duration olderThan) {
      return new Config(olderThan, DEFAULT_BATCH_ROOTS, DEFAULT_INTERVAL, DEFAULT_PAUSE);
    }
  }

  private final Journal journal;
  private final Config config;
  private final String by;
  private final Thread thread;
  private volatile boolean stopping;

  private Pruner(Journal journal, Config config, String by) {
    this.journal = journal;
    this.config = config;
    this.by = by;
    this.thread = Thread.ofPlatform().name("flows-pruner").daemon().unstarted(this::loop);
  }

  /** Starts pruning in the background; {@code by} is journaled in each audit record. */
  public static Pruner start(Journal journal, Config config, String by) {
    Pruner p = new Pruner(journal, config, by);
    p.thread.start();
    return p;
  }

  private void loop() {
    PruneRequest batch =
        new PruneRequest(config.olderThan(), OptionalInt.of(config.batchRoots()), by, false);
    while (!stopping) {
      try {
        PruneReport r = journal.prune(batch);
        if (!r.empty()) {
          LOG.info(
              "pruned {} runs ({} roots, {} journal entries) that ended over {} ago",
              r.runs(),
              r.roots().size(),
              r.entries(),
              config.olderThan());
        }
        Thread.sleep(r.empty() ? config.interval() : config.pause());
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.warn("pruning failed, trying again in {}: {}", config.interval(), e.getMessage());
        try {
          Thread.sleep(config.interval());
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    stopping = true;
    thread.interrupt();
    try {
      thread.join(Duration.ofSeconds(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
