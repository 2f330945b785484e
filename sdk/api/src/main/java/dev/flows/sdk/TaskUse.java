package dev.flows.sdk;

/**
 * Whether an MCP call is made as a task (MCP tasks: the server runs the call durably and flows
 * polls it by id, even across worker crashes), overriding the server's flows.json {@code tasks}.
 */
public enum TaskUse {
  /** A task when the server and the tool allow one; a plain call otherwise (the default). */
  AUTOMATIC("automatic"),
  /** Always a task: a server or tool that cannot run one fails the call before it is sent. */
  REQUIRED("required"),
  /** Never a task. */
  FORBIDDEN("forbidden");

  private final String wire;

  TaskUse(String wire) {
    this.wire = wire;
  }

  /** The name journaled in the call's instruction ({@code tasks}) and written in flows.json. */
  public String wire() {
    return wire;
  }

  /** The use named {@code wire}; empty for another name. */
  public static java.util.Optional<TaskUse> fromWire(String wire) {
    return java.util.Arrays.stream(values()).filter(u -> u.wire.equals(wire)).findFirst();
  }
}
