package dev.flows.worker.mcp;

import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.mcp.McpTransportPort;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * W3C trace context for an MCP call, put in the request's {@code _meta} (SEP-414). The trace id is
 * derived from the run id alone, so every call of a run, made by whichever worker, is in one trace;
 * the parent span id from the run, step and attempt, so each attempt's calls hang off their own
 * span. Derived rather than random so a worker that takes a run over continues the same trace.
 */
public final class TraceContext {
  private TraceContext() {}

  /** 32 lower-case hex digits, never all zero. */
  public static String traceId(String runId) {
    return nonZero(hex(digest("flows-trace:" + runId), 16));
  }

  /** 16 lower-case hex digits, never all zero. */
  public static String spanId(String runId, String stepId, int attempt) {
    return nonZero(hex(digest("flows-span:" + runId + "\n" + stepId + "\n" + attempt), 8));
  }

  /** {@code version-traceid-parentid-flags}, sampled. */
  public static String traceparent(LeaseToken lease) {
    String run = lease.runId().value();
    return "00-" + traceId(run) + "-" + spanId(run, lease.stepId(), lease.attempt()) + "-01";
  }

  /** The {@code _meta} of a call: its idempotency key and its trace context. */
  public static Map<String, Object> meta(LeaseToken lease, String idempotencyKey) {
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(McpTransportPort.IDEMPOTENCY_KEY_META, idempotencyKey);
    meta.put(McpTransportPort.TRACEPARENT_META, traceparent(lease));
    return meta;
  }

  private static byte[] digest(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String hex(byte[] b, int bytes) {
    return HexFormat.of().formatHex(b, 0, bytes);
  }

  private static String nonZero(String hex) {
    return hex.chars().allMatch(c -> c == '0') ? hex.substring(0, hex.length() - 1) + "1" : hex;
  }
}
