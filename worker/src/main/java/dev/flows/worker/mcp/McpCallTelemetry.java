package dev.flows.worker.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.worker.telemetry.FlowsTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The telemetry of one {@code tools/call}: its CLIENT span named {@code tools/call <tool>} with the
 * OpenTelemetry MCP semantic-convention attributes, the {@code _meta} sent with it (the idempotency
 * key, and the W3C {@code traceparent} of this span when it is recorded), and the {@code
 * mcp.client.operation.duration} measurement. All of the call's telemetry is made here.
 */
final class McpCallTelemetry {
  static final String TRACEPARENT_META = McpTransportPort.TRACEPARENT_META;

  private final String server;
  private final String tool;
  private final Span span;
  private final long startNanos = System.nanoTime();

  private McpCallTelemetry(String server, String tool, Span span) {
    this.server = server;
    this.tool = tool;
    this.span = span;
  }

  /** Starts the call's span as a child of the current context (the attempt's span). */
  static McpCallTelemetry start(String server, String tool, JsonNode connection) {
    var b =
        FlowsTelemetry.otel()
            .getTracer(FlowsTelemetry.SCOPE)
            .spanBuilder("tools/call " + tool)
            .setSpanKind(SpanKind.CLIENT)
            .setParent(Context.current())
            .setAttribute("mcp.method.name", "tools/call")
            .setAttribute("gen_ai.tool.name", tool)
            .setAttribute("gen_ai.operation.name", "execute_tool")
            .setAttribute("mcp.server.name", server);
    String transport = connection.path("transport").asText();
    if (transport.equals("stdio")) {
      b.setAttribute("network.transport", "pipe");
    } else if (transport.equals("http")) {
      b.setAttribute("network.transport", "tcp");
      try {
        URI u = URI.create(connection.path("url").asText());
        if (u.getHost() != null) {
          b.setAttribute("server.address", u.getHost());
          int port = u.getPort() >= 0 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
          b.setAttribute(AttributeKey.longKey("server.port"), (long) port);
        }
      } catch (IllegalArgumentException e) {
        // The connection was validated when the flow was admitted; a span goes without it.
      }
    }
    return new McpCallTelemetry(server, tool, b.startSpan());
  }

  /** The request's {@code _meta}: the idempotency key, and this span's {@code traceparent}. */
  Map<String, Object> meta(String idempotencyKey) {
    Map<String, Object> meta = new HashMap<>();
    meta.put(McpTransportPort.IDEMPOTENCY_KEY_META, idempotencyKey);
    SpanContext c = span.getSpanContext();
    if (c.isValid()) {
      meta.put(
          TRACEPARENT_META,
          "00-" + c.getTraceId() + "-" + c.getSpanId() + "-" + c.getTraceFlags().asHex());
    }
    return meta;
  }

  /** The call answered {@code result}. */
  void answered(ToolCallResult result) {
    if (result.isError()) {
      end("tool_error");
    } else {
      end("");
    }
  }

  /** The request was answered without the call's result: a task created, or polled. */
  void answeredTask() {
    end("");
  }

  /** The call failed without an answer, as {@code errorType} (a flows diagnostic). */
  void failed(String errorType) {
    end(errorType);
  }

  private void end(String errorType) {
    FlowsTelemetry.metrics()
        .mcpCall(server, tool, Duration.ofNanos(System.nanoTime() - startNanos), errorType);
    if (!errorType.isEmpty()) {
      span.setAttribute("error.type", errorType);
      span.setStatus(StatusCode.ERROR);
    }
    span.end();
  }
}
