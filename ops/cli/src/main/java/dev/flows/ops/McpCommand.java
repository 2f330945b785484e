package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.mcp.ToolCallResult;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpSessions;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.Preflight;
import dev.flows.sdk.runtime.PreflightException;
import dev.flows.sdk.runtime.SdkConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code flows mcp}: look at the servers of the nearest flows.json through the same client. */
@Command(
    name = "mcp",
    mixinStandardHelpOptions = true,
    description =
        "Inspect and try the MCP servers of the nearest flows.json (nothing is journaled).",
    subcommands = {McpCommand.Tools.class, McpCommand.Call.class})
final class McpCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    throw new FlowsException(
        ErrorCode.INVALID_INPUT,
        "a subcommand is required",
        "flows mcp",
        "use `flows mcp tools [SERVER]` or `flows mcp call SERVER TOOL ARGS_JSON`");
  }

  /**
   * The nearest flows.json walking up from {@code dir}; none at all is {@code config_not_found}.
   */
  static FlowsConfig config(String dir) {
    Path start = dir == null ? Path.of("").toAbsolutePath() : Path.of(dir).toAbsolutePath();
    return FlowsConfigLoader.load(
        FlowsConfigLoader.find(start)
            .orElseThrow(
                () ->
                    new FlowsException(
                        ErrorCode.CONFIG_NOT_FOUND,
                        "no flows.json in " + start + " or any directory above it",
                        dir == null ? start.toString() : "--dir",
                        "run it where a flows.json is (or below), or pass --dir DIR; flows.json"
                            + " declares the servers: {\"mcp\": {\"NAME\": {\"command\": …}}}")));
  }

  static void requireServer(FlowsConfig config, String server) {
    if (config.server(server).isEmpty()) {
      throw new FlowsException(
          ErrorCode.MCP_UNDECLARED_SERVER,
          "no server '" + server + "' in " + config.origin(),
          server,
          config.mcp().isEmpty()
              ? "add it under \"mcp\" in flows.json"
              : "use one of " + config.mcp().keySet());
    }
  }

  @Command(
      name = "tools",
      mixinStandardHelpOptions = true,
      description = "Connect and list the tools (with hints) of one server, or of all.")
  static final class Tools implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "SERVER")
    String server;

    @Option(
        names = "--dir",
        paramLabel = "DIR",
        description = "Find flows.json walking up from DIR (default: the working directory).")
    String dir;

    private final Session s;

    Tools(Session s) {
      this.s = s;
    }

    @Override
    public Integer call() {
      FlowsConfig config = config(dir);
      List<String> servers = server == null ? List.copyOf(config.mcp().keySet()) : List.of(server);
      servers.forEach(name -> requireServer(config, name));
      Inventory inv;
      try {
        inv =
            Preflight.connect(
                FlowHeader.named("mcp-tools").mcp(servers.toArray(String[]::new)).build(),
                config,
                SdkConfig.DEFAULTS.preflightTimeout(),
                McpCredentials.fromEnvironment());
      } catch (PreflightException e) {
        return EngineSupport.refusePreflight(s, e);
      }
      ObjectNode out = s.object();
      ObjectNode byServer = out.putObject("servers");
      for (String name : servers) {
        byServer.set(name, inv.servers().get(name).path("tools"));
      }
      s.emit(
          out,
          p -> {
            for (String name : servers) {
              p.println(name + ":");
              inv.servers()
                  .get(name)
                  .path("tools")
                  .fields()
                  .forEachRemaining(
                      t ->
                          p.println(
                              "  "
                                  + t.getKey()
                                  + (t.getValue().isEmpty() ? "" : "  " + t.getValue())));
            }
          });
      return Exit.SUCCESS;
    }
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> asMap(JsonNode json) {
    return Session.JSON.convertValue(json, Map.class);
  }

  @Command(
      name = "call",
      mixinStandardHelpOptions = true,
      description = "Call one tool ad hoc (not journaled, no idempotency key), for debugging.")
  static final class Call implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SERVER")
    String server;

    @Parameters(index = "1", paramLabel = "TOOL")
    String tool;

    @Parameters(index = "2", arity = "0..1", paramLabel = "ARGS_JSON")
    String args;

    @Option(
        names = "--dir",
        paramLabel = "DIR",
        description = "Find flows.json walking up from DIR (default: the working directory).")
    String dir;

    private final Session s;

    Call(Session s) {
      this.s = s;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Integer call() throws InterruptedException {
      FlowsConfig config = config(dir);
      requireServer(config, server);
      JsonNode argsJson = EngineSupport.json(args, "ARGS_JSON", "'{\"text\":\"hi\"}'");
      if (!argsJson.isObject()) {
        throw new FlowsException(
            ErrorCode.INVALID_INPUT,
            "ARGS_JSON must be a JSON object",
            "ARGS_JSON",
            "pass e.g. '{\"text\":\"hi\"}'");
      }
      McpClientConfig limits =
          McpClientConfig.DEFAULTS.withConnectTimeout(SdkConfig.DEFAULTS.preflightTimeout());
      try (McpSessions sessions = new McpSessions(limits, McpCredentials.fromEnvironment())) {
        ToolCallResult r;
        try {
          r =
              sessions
                  .session(McpServerConfigJson.write(config.server(server).orElseThrow().config()))
                  .callTool(tool, asMap(argsJson))
                  .get(limits.callTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          throw e.getCause() instanceof McpException m
              ? m
              : new FlowsException(
                  ErrorCode.MCP_DISCONNECTED,
                  String.valueOf(e.getCause()),
                  server,
                  "check the server");
        } catch (TimeoutException e) {
          throw new FlowsException(
              ErrorCode.MCP_RESULT_UNAVAILABLE, "no result in time", server, "check the server");
        }
        ObjectNode out = s.object();
        out.put("server", server).put("tool", tool).put("isError", r.isError());
        out.set("content", r.content());
        r.structuredContent().ifPresent(sc -> out.set("structuredContent", sc));
        s.emit(out, p -> p.println(r.isError() ? "tool error: " + r.text() : r.text()));
        return r.isError() ? Exit.FAILED : Exit.SUCCESS;
      }
    }
  }
}
