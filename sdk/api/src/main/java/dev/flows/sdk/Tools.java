package dev.flows.sdk;

import java.util.List;
import java.util.Objects;

/**
 * Tools of one MCP server an agent may call ({@link AgentCall#tools(Tools...)}): the listed ones,
 * or every tool of the server's frozen inventory when none is listed.
 */
public record Tools(String server, List<String> names) {
  public Tools {
    Objects.requireNonNull(server, "server");
    names = List.copyOf(names);
  }

  /** The tools {@code names} of {@code server}. */
  public static Tools of(String server, String... names) {
    return new Tools(server, List.of(names));
  }

  /** Every tool {@code server} listed at preflight. */
  public static Tools all(String server) {
    return new Tools(server, List.of());
  }
}
