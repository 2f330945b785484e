package dev.flows.worker.telemetry;

import dev.flows.kernel.journal.CompletionAck;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;

/** The span of one step attempt: current while its work starts, ended by how it ended. */
public final class AttemptSpan {
  /** Telemetry is off: nothing is recorded. */
  public static final AttemptSpan NONE = new AttemptSpan(Span.getInvalid());

  private final Span span;

  AttemptSpan(Span span) {
    this.span = span;
  }

  /** Makes this span the current one, so the spans of the work (MCP calls) are its children. */
  public Scope makeCurrent() {
    return this == NONE ? Scope.noop() : Context.current().with(span).makeCurrent();
  }

  /** The journal took the completion. */
  public void completed(CompletionAck ack) {
    span.setAttribute(RunTraces.REASON, ack.reason().wire());
    span.setAttribute(RunTraces.DISPOSITION, ack.disposition().wire());
    span.end();
  }

  /** The lease was lost ({@code reason}): the attempt was not completed by this worker. */
  public void leaseLost(String reason) {
    span.setAttribute(RunTraces.LEASE_LOST, reason);
    span.setStatus(StatusCode.ERROR, "lease lost: " + reason);
    span.end();
  }

  /** The attempt ended without a completion. */
  public void failed(Throwable t) {
    span.recordException(t);
    span.setStatus(StatusCode.ERROR, String.valueOf(t.getMessage()));
    span.end();
  }
}
