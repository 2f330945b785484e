package dev.flows.spring;

import dev.flows.embed.Flows;
import dev.flows.embed.FlowsHealth;
import dev.flows.embed.WorkerCounts;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToLongFunction;

/**
 * The worker's counters as Micrometer meters: {@code flows.worker.attempts} by {@code outcome}
 * ({@code claimed}, {@code completed}, {@code lease_lost}, {@code failed}) and the gauge {@code
 * flows.worker.claiming} (1 while the claim loop runs). Read from memory at each scrape: no query.
 */
public class FlowsMeters implements MeterBinder {
  public static final String ATTEMPTS = "flows.worker.attempts";
  public static final String CLAIMING = "flows.worker.claiming";

  private final Flows flows;

  public FlowsMeters(Flows flows) {
    this.flows = flows;
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    attempts(registry, "claimed", WorkerCounts::claimed);
    attempts(registry, "completed", WorkerCounts::completed);
    attempts(registry, "lease_lost", WorkerCounts::leasesLost);
    attempts(registry, "failed", WorkerCounts::failed);
    Gauge.builder(CLAIMING, flows, f -> f.workerState() == FlowsHealth.Worker.CLAIMING ? 1 : 0)
        .description("1 while this application's worker claims work")
        .register(registry);
  }

  private void attempts(MeterRegistry registry, String outcome, ToLongFunction<WorkerCounts> n) {
    FunctionCounter.builder(ATTEMPTS, flows, f -> n.applyAsLong(f.workerCounts()))
        .description("Step attempts of this application's worker, by outcome")
        .baseUnit("attempts")
        .tag("outcome", outcome)
        .register(registry);
  }
}
