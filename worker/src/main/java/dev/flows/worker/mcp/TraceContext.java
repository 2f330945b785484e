package dev.flows.worker.mcp;

import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.worker.telemetry.RunTraces;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * W3C trace context for an MCP call, put in the request's {@code _meta} (SEP-414), with the ids
 * {@link RunTraces} gives the spans: the trace id derives from the root run, so every call of a
 * flow, by whichever worker and in whichever child run, is in the flow's one trace; the parent span
 * id is the attempt's span id, so each attempt's calls hang off their own attempt. With tracing on,
 * the call's own span replaces the parent (same trace).
 */
public final class TraceContext {
  private TraceContext() {}

  /** {@code version-traceid-parentid-flags}, sampled. */
  public static String traceparent(RunRef root, LeaseToken lease) {
    return "00-" + RunTraces.traceId(root) + "-" + RunTraces.attemptSpanId(lease) + "-01";
  }

  /** The {@code _meta} of a call: its idempotency key and its trace context. */
  public static Map<String, Object> meta(RunRef root, LeaseToken lease, String idempotencyKey) {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(McpTransportPort.IDEMPOTENCY_KEY_META, idempotencyKey);
    meta.put(McpTransportPort.TRACEPARENT_META, traceparent(root, lease));
    return meta;
  }
}
