package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.sdk.runtime.FlowsEngine;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code flows worker}: a long-running worker; SIGTERM drains it. */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description =
        "Run a worker until SIGTERM: it serves flow bodies (single-file flows from the journal,"
            + " and flow classes on its class path), MCP calls and commands. SIGTERM stops"
            + " claiming, lets running attempts finish within the stop grace, and leaves no lease.")
final class WorkerCommand implements Callable<Integer> {
  @Option(names = "--capacity", paramLabel = "N", description = "Attempts at once (default 16).")
  int capacity = 16;

  private final Session s;

  WorkerCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() throws InterruptedException {
    FlowsEngine engine = EngineSupport.engine(s.journal(EngineSupport.poolFor(capacity)), capacity);
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              s.notice("flows: worker stopping (draining running attempts)…");
              engine.close();
              stopped.countDown();
            });
    Runtime.getRuntime().addShutdownHook(hook);
    engine.startWorker();
    ObjectNode ev = s.object();
    ev.put("type", "worker.ready")
        .put("worker", engine.worker().id().value())
        .put("capacity", capacity);
    s.event(ev, "worker " + engine.worker().id().value() + " ready (capacity " + capacity + ")");
    stopped.await();
    return Exit.SUCCESS;
  }
}
