package dev.flows.kernel.mcp;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Which MCP protocol revision a server is spoken to in. {@link #AUTO} (the default) asks the server
 * first with {@code server/discover} (2026-07-28, stateless) and falls back to the session
 * handshake of the 2025 revisions when the server does not know it; the others pin one revision.
 */
public enum McpProtocol {
  AUTO("auto"),
  V2026_07_28("2026-07-28"),
  V2025_11_25("2025-11-25"),
  V2025_06_18("2025-06-18");

  /** The stateless revision: no sessions, no initialize, version and capabilities per request. */
  public static final String MODERN = "2026-07-28";

  private final String wire;

  McpProtocol(String wire) {
    this.wire = wire;
  }

  /** As written in flows.json and in frozen connection configs. */
  public String wire() {
    return wire;
  }

  /** True when this setting may speak 2026-07-28 (auto or pinned to it). */
  public boolean triesModern() {
    return this == AUTO || this == V2026_07_28;
  }

  /** True when this setting may fall back to (or is pinned to) a 2025 session handshake. */
  public boolean allowsLegacy() {
    return this != V2026_07_28;
  }

  /**
   * The 2025 revisions a session handshake may offer and accept: the one pinned, else all that
   * {@code supported} lists.
   */
  public List<String> handshakeVersions(List<String> supported) {
    return switch (this) {
      case V2025_11_25, V2025_06_18 -> List.of(wire);
      case AUTO, V2026_07_28 -> supported;
    };
  }

  public static Optional<McpProtocol> fromWire(String s) {
    return Arrays.stream(values()).filter(p -> p.wire.equals(s)).findFirst();
  }

  /** The values flows.json accepts, for refusals. */
  public static List<String> wires() {
    return Arrays.stream(values()).map(McpProtocol::wire).toList();
  }
}
