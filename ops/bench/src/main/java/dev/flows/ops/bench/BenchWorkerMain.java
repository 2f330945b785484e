package dev.flows.ops.bench;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;

/**
 * A worker process for the benchmark: serves the bench flows from the journal at {@code args[0]}
 * with a lease of {@code args[1]} ms and a capacity of {@code args[2]} (and, if given, an MCP call
 * timeout of {@code args[3]} ms) until killed. Prints {@code worker ready}, then its heap use once
 * a second (the parent reads RSS from /proc).
 */
public final class BenchWorkerMain {
  private BenchWorkerMain() {}

  public static void main(String[] args) throws Exception {
    Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
    int capacity = Integer.parseInt(args[2]);
    PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(args[0]));
    McpClientConfig mcp =
        args.length > 3
            ? McpClientConfig.DEFAULTS.withCallTimeout(Duration.ofMillis(Long.parseLong(args[3])))
            : McpClientConfig.DEFAULTS;
    FlowsEngine engine =
        Engines.engine(journal, capacity, lease, WorkerConfig.DEFAULT_RECONCILE_INTERVAL, mcp);
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
