package dev.flows.kernel.mcp;

/** Where one MCP server connection is in its life; see {@link ConnectionTransition}. */
public enum ConnectionState {
  DISCONNECTED("disconnected"),
  CONNECTING("connecting"),
  CONNECTED("connected"),
  RECONNECTING("reconnecting"),
  CLOSED("closed");

  private final String wire;

  ConnectionState(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  /** Closed is final: a stopped connection is never reused, a new one is made instead. */
  public boolean terminal() {
    return this == CLOSED;
  }
}
