package dev.flows.ops;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.Preflight;
import dev.flows.sdk.runtime.PreflightException;
import dev.flows.sdk.runtime.SdkConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code flows check}: compiles, validates and preflights a flow; never runs it, writes nothing.
 */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description =
        "Compile, validate and preflight a flow without running it (no database is touched)."
            + " Exit 0 clean, 2 refused.")
final class CheckCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "FLOW", description = "NAME.flow.java, or a flow class.")
  String flow;

  private final Session s;

  CheckCommand(Session s) {
    this.s = s;
  }

  @Override
  public Integer call() {
    Path cwd = Path.of("").toAbsolutePath();
    LoadedFlow loaded = LoadedFlow.load(flow, cwd);
    FlowsConfig config = FlowsConfigLoader.loadNearest(loaded.configSearchStart());
    Inventory inventory;
    try {
      inventory =
          Preflight.check(
              loaded,
              config,
              SdkConfig.DEFAULTS.preflightTimeout(),
              McpCredentials.fromEnvironment());
    } catch (PreflightException e) {
      return EngineSupport.refusePreflight(s, e);
    }
    ObjectNode out = s.object();
    out.put("ok", true);
    out.put("flow", loaded.flow().header().name());
    out.put("version", loaded.flow().header().version());
    out.put("config", config.origin());
    ObjectNode servers = out.putObject("servers");
    for (String server : loaded.flow().header().mcp()) {
      ArrayNode tools = servers.putArray(server);
      inventory.tools(server).forEach(tools::add);
    }
    s.emit(
        out,
        p -> {
          p.println(
              "ok: flow "
                  + loaded.flow().header().name()
                  + " v"
                  + loaded.flow().header().version()
                  + ", config "
                  + config.origin());
          for (String server : loaded.flow().header().mcp()) {
            p.println("  " + server + ": " + String.join(", ", inventory.tools(server)));
          }
        });
    return Exit.SUCCESS;
  }
}
