package dev.flows.examples.servers;

import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.function.Function;

/**
 * An example tool defined once and served on both protocol revisions: {@link #legacy()} for the
 * 2025 session servers, {@link #modern()} for the SDK's 2026-07-28 server. A {@link ToolError}
 * becomes an {@code isError} result carrying its message on both.
 */
public record ExampleTool(McpSchema.Tool definition, Function<ToolCall, CallToolResult> handler) {
  public String name() {
    return definition.name();
  }

  /**
   * Answers the call, a {@link ToolError} as an {@code isError} result; an {@link InputNeeded} is
   * thrown on (the 2026-07-28 server answers it {@code input_required}).
   */
  public CallToolResult call(ToolCall call) {
    try {
      return handler.apply(call);
    } catch (ToolError e) {
      return ToolKit.error(e.getMessage());
    }
  }

  /** As {@link #call}, for a 2025 session, which cannot carry a request for input. */
  CallToolResult callInSession(ToolCall call) {
    try {
      return call(call);
    } catch (InputNeeded e) {
      return ToolKit.error(
          name()
              + " needs a confirmation ("
              + e.getMessage()
              + "), which a 2025 session cannot carry; call it over 2026-07-28");
    }
  }

  public SyncToolSpecification legacy() {
    return SyncToolSpecification.builder()
        .tool(definition)
        .callHandler(
            (exchange, request) ->
                callInSession(
                    new ToolCall(
                        exchange.sessionId() == null ? "" : exchange.sessionId(),
                        request.arguments(),
                        request.meta())))
        .build();
  }

  public io.modelcontextprotocol.modern.server.feature.McpSyncTool modern() {
    return ModernTools.of(this);
  }
}
