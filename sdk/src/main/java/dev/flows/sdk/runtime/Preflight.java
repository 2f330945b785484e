package dev.flows.sdk.runtime;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpException;
import dev.flows.kernel.mcp.ToolRegistry;
import dev.flows.mcp.client.McpConnection;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.client.McpTransports;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.ServerEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checks a flow before anything is journaled. The pure pass needs no network: it compares the
 * header's {@code tools.mcp} with flows.json and with the servers the body's source calls, and
 * reports every mismatch at once.
 */
public final class Preflight {
  private Preflight() {}

  /**
   * The pure pass. {@code bodyServers} are the servers the body names in {@code f.mcp("...")} (from
   * its source; empty when the source is not at hand).
   */
  public static List<FlowsException> pure(
      FlowHeader header, FlowsConfig config, Set<String> bodyServers) {
    return pure(header, config, bodyServers, Set.of());
  }

  /**
   * As {@link #pure(FlowHeader, FlowsConfig, Set)}, {@code modelsInCode} the models a service gave
   * in code (they count as declared, as flows.json's {@code models} do).
   */
  public static List<FlowsException> pure(
      FlowHeader header, FlowsConfig config, Set<String> bodyServers, Set<String> modelsInCode) {
    List<FlowsException> problems = new ArrayList<>();
    for (int i = 0; i < header.models().size(); i++) {
      String m = header.models().get(i);
      if (config.model(m).isEmpty() && !modelsInCode.contains(m)) {
        problems.add(
            new FlowsException(
                ErrorCode.LLM_UNDECLARED_MODEL,
                "the header declares model '"
                    + m
                    + "' but "
                    + config.origin()
                    + " has no entry for it"
                    + (config.models().isEmpty()
                        ? ""
                        : " (it has: " + config.models().keySet() + ")"),
                "flow " + header.name() + " models[" + i + "]",
                "add \"" + m + "\" under \"models\" in flows.json, or fix the name in the header"));
      }
    }
    for (int i = 0; i < header.mcp().size(); i++) {
      String s = header.mcp().get(i);
      if (config.server(s).isEmpty()) {
        problems.add(
            new FlowsException(
                ErrorCode.MCP_UNDECLARED_SERVER,
                "the header declares server '"
                    + s
                    + "' but "
                    + config.origin()
                    + " has no entry for it"
                    + (config.mcp().isEmpty() ? "" : " (it has: " + config.mcp().keySet() + ")"),
                "flow " + header.name() + " tools.mcp[" + i + "]",
                "add \"" + s + "\" under \"mcp\" in flows.json, or fix the name in the header"));
      }
    }
    for (String s : bodyServers) {
      if (!header.mcp().contains(s)) {
        problems.add(
            new FlowsException(
                ErrorCode.MCP_UNDECLARED_SERVER,
                "the body calls f.mcp(\"" + s + "\") but the header does not declare it",
                "flow " + header.name() + " body",
                "add \"" + s + "\" to the header's tools.mcp, or fix the name in the call"));
      }
    }
    return problems;
  }

  /**
   * Both passes for a loaded flow, then the tools its source names by literals ({@code
   * f.mcp("s").tool("t")}) against what each server lists: every problem at once, before anything
   * is journaled. Answers the inventory to freeze.
   */
  public static Inventory check(
      LoadedFlow flow, FlowsConfig config, Duration timeout, McpCredentials credentials) {
    return check(flow, config, Set.of(), timeout, credentials);
  }

  /** As above, {@code modelsInCode} the models given in code (declared as flows.json's are). */
  public static Inventory check(
      LoadedFlow flow,
      FlowsConfig config,
      Set<String> modelsInCode,
      Duration timeout,
      McpCredentials credentials) {
    FlowHeader header = flow.flow().header();
    List<FlowsException> problems = pure(header, config, flow.bodyServers(), modelsInCode);
    if (!problems.isEmpty()) {
      throw new PreflightException(problems);
    }
    Inventory inventory = connect(header, config, timeout, credentials);
    problems = unknownTools(header, inventory, flow.bodyTools());
    if (!problems.isEmpty()) {
      throw new PreflightException(problems);
    }
    return inventory;
  }

  /**
   * {@code mcp_unknown_tool} for each tool the body names that its server does not list (servers
   * the inventory lacks are the pure pass's to report).
   */
  public static List<FlowsException> unknownTools(
      FlowHeader header, Inventory inventory, Map<String, Set<String>> bodyTools) {
    List<FlowsException> problems = new ArrayList<>();
    bodyTools.forEach(
        (server, tools) -> {
          if (!inventory.hasServer(server)) {
            return;
          }
          for (String tool : tools) {
            if (!inventory.hasTool(server, tool)) {
              problems.add(
                  new FlowsException(
                      ErrorCode.MCP_UNKNOWN_TOOL,
                      "the body calls f.mcp(\""
                          + server
                          + "\").tool(\""
                          + tool
                          + "\") but server '"
                          + server
                          + "' does not list that tool (it lists: "
                          + String.join(", ", inventory.tools(server))
                          + ")",
                      "flow " + header.name() + " body",
                      "fix the tool name in the call (`flows mcp tools "
                          + server
                          + "` lists the server's tools)"));
            }
          }
        });
    return problems;
  }

  /**
   * The connect pass: connects to every server the header declares (in parallel, each bounded by
   * {@code timeout}), lists its tools, and disconnects. Answers the inventory to freeze into the
   * run, or throws every unreachable server at once. Nothing is journaled either way.
   */
  public static Inventory connect(
      FlowHeader header, FlowsConfig config, Duration timeout, McpCredentials credentials) {
    // The servers it connects must be declared; models are the pure pass's alone.
    List<FlowsException> pure = pure(header, config, Set.of(), Set.copyOf(header.models()));
    if (!pure.isEmpty()) {
      throw new PreflightException(pure);
    }
    McpClientConfig limits =
        McpClientConfig.DEFAULTS.withConnectTimeout(timeout).withCallTimeout(timeout);
    List<ServerEntry> entries =
        header.mcp().stream().map(s -> config.server(s).orElseThrow()).toList();
    List<McpConnection> connections = connections(entries, limits, credentials);
    List<CompletableFuture<Void>> connecting =
        connections.stream().map(McpConnection::connect).toList();
    List<FlowsException> problems = new ArrayList<>();
    List<Inventory.Server> servers = new ArrayList<>();
    try {
      for (int i = 0; i < entries.size(); i++) {
        ServerEntry e = entries.get(i);
        String place = config.origin() + "#/mcp/" + e.name();
        try {
          // The connection's own timeout answers first; this bound only guards against a hang.
          connecting.get(i).get(timeout.toMillis() * 2 + 1_000, TimeUnit.MILLISECONDS);
          servers.add(
              new Inventory.Server(
                  e.config(),
                  e.honoursIdempotencyKeys(),
                  connections.get(i).tools(),
                  connections.get(i).protocolVersion(),
                  e.tasks()));
        } catch (ExecutionException x) {
          problems.add(unreachable(e, x.getCause(), place));
        } catch (TimeoutException x) {
          problems.add(
              new McpUnreachableException(
                  e.name(),
                  McpDiagnostic.HANDSHAKE_TIMEOUT,
                  "no handshake within " + timeout,
                  place));
        } catch (InterruptedException x) {
          Thread.currentThread().interrupt();
          throw new FlowsException(
              ErrorCode.MCP_UNREACHABLE, "preflight interrupted", e.name(), "run it again");
        }
      }
    } finally {
      connections.forEach(McpConnection::stop);
    }
    if (!problems.isEmpty()) {
      throw new PreflightException(problems);
    }
    return frozen(Inventory.of(servers), config, entries);
  }

  /** {@code inventory} with flows.json's secret marks and key variables frozen into it. */
  private static Inventory frozen(
      Inventory inventory, FlowsConfig config, List<ServerEntry> entries) {
    Map<String, Map<String, dev.flows.kernel.keys.SecretMarks>> secrets = new HashMap<>();
    entries.forEach(e -> secrets.put(e.name(), e.secrets()));
    List<String> keyEnvs =
        config
            .secretKeys()
            .map(
                k ->
                    java.util.stream.Stream.concat(
                            java.util.stream.Stream.of(k.keyEnv()), k.oldKeyEnvs().stream())
                        .toList())
            .orElse(List.of());
    return inventory.withSecrets(secrets, keyEnvs);
  }

  private static List<McpConnection> connections(
      List<ServerEntry> entries, McpClientConfig limits, McpCredentials credentials) {
    SplittableRandom random = new SplittableRandom();
    return entries.stream()
        .map(
            e ->
                new McpConnection(
                    e.name(),
                    limits,
                    McpTransports.factory(e.config(), limits, credentials),
                    new ToolRegistry(),
                    random.split()))
        .toList();
  }

  private static McpUnreachableException unreachable(ServerEntry e, Throwable cause, String place) {
    McpDiagnostic d =
        cause instanceof McpException m ? m.diagnostic() : McpDiagnostic.MCP_DISCONNECTED;
    return new McpUnreachableException(e.name(), d, String.valueOf(cause.getMessage()), place);
  }
}
