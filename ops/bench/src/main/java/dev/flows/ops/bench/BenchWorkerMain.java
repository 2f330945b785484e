package dev.flows.ops.bench;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.sdk.runtime.FlowsEngine;
import java.time.Duration;

/**
 * A worker process for the benchmark: serves the bench flows from the journal at {@code args[0]}
 * with a lease of {@code args[1]} ms and a capacity of {@code args[2]} until killed. Prints {@code
 * worker ready}, then its heap use once a second (the parent reads RSS from /proc).
 */
public final class BenchWorkerMain {
  private BenchWorkerMain() {}

  public static void main(String[] args) throws Exception {
    Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
    int capacity = Integer.parseInt(args[2]);
    PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(args[0]));
    FlowsEngine engine = Engines.engine(journal, capacity, lease);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  engine.close();
                  journal.close();
                }));
    engine.startWorker();
    System.out.println("worker ready");
    System.out.flush();
    Runtime rt = Runtime.getRuntime();
    while (true) {
      Thread.sleep(1_000);
      System.out.println(
          "heap used=" + (rt.totalMemory() - rt.freeMemory()) + " committed=" + rt.totalMemory());
      System.out.flush();
    }
  }
}
