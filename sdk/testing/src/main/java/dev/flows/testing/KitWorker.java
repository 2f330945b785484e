package dev.flows.testing;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.Flow;
import dev.flows.sdk.ModelClient;
import dev.flows.sdk.runtime.ClientModelPort;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

/**
 * One worker of the environment: an engine of its own (its own worker id) on its own view of the
 * shared journal, running the registered flows. A crash cuts its view off the journal, so it writes
 * nothing more, and its lease is left to expire as a dead process's would.
 */
final class KitWorker implements AutoCloseable {
  /** How often an idle worker looks again: after the clock moved, work it made due is seen soon. */
  static final Duration POLL = Duration.ofMillis(20);

  /** How often it looks for overdue leases: a crashed worker's lease expires soon after. */
  static final Duration RECONCILE = Duration.ofMillis(50);

  /** The lease of the kit's workers: the time the clock skips after a simulated crash. */
  static final Duration LEASE = WorkerConfig.DEFAULT_LEASE;

  private final KitJournal view;
  private final FlowsEngine engine;

  KitWorker(
      Journal shared,
      InstantSource clock,
      List<Flow<?, ?>> flows,
      Map<String, ModelClient> models,
      int number) {
    this.view = new KitJournal(shared);
    WorkerConfig config =
        WorkerConfig.defaults().toBuilder()
            .pollInterval(POLL)
            .reconcileInterval(RECONCILE)
            .defaultLease(LEASE)
            .stopGrace(Duration.ofSeconds(2))
            .build();
    this.engine =
        new FlowsEngine(
            view.journal(),
            config,
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment(),
            clock,
            new WorkerId("flows-testing-worker-" + number));
    flows.forEach(engine::register);
    // Models are not frozen into a run as its MCP servers are: the worker must know them.
    models.forEach((name, m) -> engine.models().register(name, new ClientModelPort(name, m)));
    engine.startWorker();
  }

  /** Dies as a killed process: nothing more reaches the journal; its threads are stopped aside. */
  void crash() {
    view.sever();
    Thread.ofPlatform().daemon().name("flows-testing-crashed-worker").start(this::close);
  }

  @Override
  public void close() {
    engine.close();
  }
}
