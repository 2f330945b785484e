package dev.flows.examples.flows;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.mcp.McpCredentials;
import java.time.Duration;

/**
 * A worker process for the crash test: serves the journal at {@code args[0]} with a lease of {@code
 * args[1]} ms until killed; secrets come from its environment, fault points from {@code
 * -Dflows.fault}.
 */
public final class ExampleWorkerMain {
  static final Duration POLL = Duration.ofMillis(100);
  static final Duration RECONCILE = Duration.ofMillis(300);

  private ExampleWorkerMain() {}

  public static void main(String[] args) throws Exception {
    PostgresJournal journal = PostgresJournal.connect(JournalStoreConfig.forUrl(args[0]));
    FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder()
                .defaultLease(Duration.ofMillis(Long.parseLong(args[1])))
                .pollInterval(POLL)
                .reconcileInterval(RECONCILE)
                .build(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  engine.close();
                  journal.close();
                }));
    engine.startWorker();
    Thread.currentThread().join();
  }
}
