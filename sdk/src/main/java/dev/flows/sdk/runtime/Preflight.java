package dev.flows.sdk.runtime;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.config.FlowsConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

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
    List<FlowsException> problems = new ArrayList<>();
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
}
