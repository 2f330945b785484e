package dev.flows.examples.servers;

import io.modelcontextprotocol.modern.McpSchema;
import io.modelcontextprotocol.modern.server.HmacRequestStateCodec;
import io.modelcontextprotocol.modern.server.McpRequestContext;
import io.modelcontextprotocol.modern.server.McpServer;
import io.modelcontextprotocol.modern.server.McpSyncResponse;
import io.modelcontextprotocol.modern.server.feature.McpSyncTool;
import io.modelcontextprotocol.modern.server.feature.McpSyncToolRepository;
import io.modelcontextprotocol.modern.server.feature.ToolsFeature;
import io.modelcontextprotocol.modern.server.feature.ToolsPage;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The example tools on the SDK's 2026-07-28 server ({@code io.modelcontextprotocol.modern}):
 * definitions and results translated from the 2025 schema types the tools are written in.
 */
final class ModernTools {
  private ModernTools() {}

  /** A stateless 2026-07-28 server offering {@code tools}. */
  static McpServer server(String name, String version, List<ExampleTool> tools) {
    Map<String, McpSyncTool> byName = new LinkedHashMap<>();
    tools.forEach(t -> byName.put(t.name(), t.modern()));
    McpSyncToolRepository repository =
        new McpSyncToolRepository() {
          @Override
          public ToolsPage list(McpRequestContext ctx, String cursor) {
            return ToolsPage.of(byName.values().stream().map(McpSyncTool::definition).toList());
          }

          @Override
          public McpSyncTool find(McpRequestContext ctx, String tool) {
            return byName.get(tool);
          }
        };
    return McpServer.builder()
        .serverInfo(McpSchema.Implementation.builder(name, version).build())
        .feature(ToolsFeature.ofSync(repository))
        .requestStateCodec(HmacRequestStateCodec.builder().key(processKey()).build())
        .build();
  }

  /**
   * The key that seals the request state of input requests: one per process, chosen here rather
   * than left to the SDK (which warns that it chose one), since an example server is always a
   * single process.
   */
  private static byte[] processKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return key;
  }

  static McpSyncTool of(ExampleTool tool) {
    var d = tool.definition();
    var a = d.annotations();
    McpSchema.Tool.Builder b =
        McpSchema.Tool.builder(d.name(), d.inputSchema()).description(d.description());
    if (d.title() != null) {
      b.title(d.title());
    }
    if (a != null) {
      b.annotations(
          McpSchema.ToolAnnotations.builder()
              .title(a.title())
              .readOnlyHint(a.readOnlyHint())
              .destructiveHint(a.destructiveHint())
              .idempotentHint(a.idempotentHint())
              .openWorldHint(a.openWorldHint())
              .build());
    }
    return McpSyncTool.of(
        b.build(),
        (ctx, req) -> {
          ToolCall call =
              new ToolCall(
                  "",
                  req.arguments(),
                  ctx.meta(),
                  req.inputResponses(),
                  java.util.Optional.ofNullable(req.requestState()));
          try {
            return McpSyncResponse.result(result(tool.call(call)));
          } catch (InputNeeded e) {
            return McpSyncResponse.result(
                McpSchema.InputRequiredResult.builder()
                    .elicit(
                        e.key(),
                        McpSchema.ElicitFormRequest.builder(e.getMessage(), e.requestedSchema())
                            .build())
                    .requestState(e.requestState())
                    .build());
          }
        });
  }

  private static McpSchema.CallToolResult result(
      io.modelcontextprotocol.spec.McpSchema.CallToolResult r) {
    McpSchema.CallToolResult.Builder b = McpSchema.CallToolResult.builder();
    for (var c : r.content()) {
      if (c instanceof io.modelcontextprotocol.spec.McpSchema.TextContent t) {
        b.addContent(McpSchema.TextContent.builder(t.text()).build());
      }
    }
    if (r.structuredContent() != null) {
      b.structuredContent(r.structuredContent());
    }
    return b.isError(Boolean.TRUE.equals(r.isError())).build();
  }
}
