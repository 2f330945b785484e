package dev.flows.sdk.runtime;

import dev.flows.sdk.Ctx;
import dev.flows.sdk.McpResult;
import dev.flows.sdk.Pending;

/** {@code f.mcp(server).tool(tool)}: an immutable handle; each call takes its own position. */
record DurableMcpTool(DurableCtx ctx, String server, String tool) implements Ctx.McpTool {
  @Override
  public McpResult call(Object arguments) {
    return ctx.callMcp(server, tool, arguments);
  }

  @Override
  public Pending<McpResult> callAsync(Object arguments) {
    return ctx.callMcpAsync(server, tool, arguments);
  }
}
