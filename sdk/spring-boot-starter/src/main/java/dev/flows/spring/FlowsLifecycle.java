package dev.flows.spring;

import dev.flows.embed.Flows;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the worker of the context's {@link Flows} when the context starts, and drains it when the
 * context closes: claiming stops, running attempts finish within {@code flows.worker.stop-grace},
 * the rest are released (each completes a retryable {@code worker_error}) for another worker. A
 * context stopped or paused and started again starts the worker again. Started before the web
 * server and stopped after it, so requests that started runs have been answered or cut off before
 * the drain.
 */
public class FlowsLifecycle implements SmartLifecycle {
  /** Below the web server's phases: started before it, stopped after it. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final Flows flows;
  private volatile boolean running;

  public FlowsLifecycle(Flows flows) {
    this.flows = flows;
  }

  @Override
  public void start() {
    if (flows.runsWorker()) {
      flows.startWorker();
    }
    running = true;
  }

  @Override
  public void stop() {
    flows.drainWorker();
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
