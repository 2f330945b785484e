package dev.flows.ops;

import dev.flows.worker.telemetry.RunTraces;
import io.opentelemetry.sdk.trace.IdGenerator;

/**
 * Random ids, except for the spans of runs and attempts: those get the ids derived from the journal
 * ({@link RunTraces}), so every worker that touches a run reports into the same trace.
 */
public final class FlowsIdGenerator implements IdGenerator {
  private final IdGenerator random = IdGenerator.random();

  @Override
  public String generateSpanId() {
    return RunTraces.pinned().map(RunTraces.Pinned::spanId).orElseGet(random::generateSpanId);
  }

  @Override
  public String generateTraceId() {
    return RunTraces.pinned().flatMap(RunTraces.Pinned::traceId).orElseGet(random::generateTraceId);
  }

  @Override
  public boolean generatesRandomTraceIds() {
    return false;
  }
}
