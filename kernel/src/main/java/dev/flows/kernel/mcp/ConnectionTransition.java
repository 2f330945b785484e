package dev.flows.kernel.mcp;

import static dev.flows.kernel.mcp.ConnectionState.CLOSED;
import static dev.flows.kernel.mcp.ConnectionState.CONNECTED;
import static dev.flows.kernel.mcp.ConnectionState.CONNECTING;
import static dev.flows.kernel.mcp.ConnectionState.DISCONNECTED;
import static dev.flows.kernel.mcp.ConnectionState.RECONNECTING;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.util.Arrays;
import java.util.Optional;

/**
 * The declared transitions of an MCP connection. Anything else is a bug in the transport and fails
 * with {@code invalid_transition}. Stop is declared from every non-final state so that {@code
 * stop()} always has a way out.
 */
public enum ConnectionTransition {
  CONNECT(DISCONNECTED, CONNECTING),
  CONNECTED_OK(CONNECTING, CONNECTED),
  CONNECT_FAILED(CONNECTING, DISCONNECTED),
  LOST(CONNECTED, RECONNECTING),
  RECONNECTED(RECONNECTING, CONNECTED),
  GAVE_UP(RECONNECTING, DISCONNECTED),
  STOPPED_DISCONNECTED(DISCONNECTED, CLOSED),
  STOPPED_CONNECTING(CONNECTING, CLOSED),
  STOPPED_CONNECTED(CONNECTED, CLOSED),
  STOPPED_RECONNECTING(RECONNECTING, CLOSED);

  private final ConnectionState from;
  private final ConnectionState to;

  ConnectionTransition(ConnectionState from, ConnectionState to) {
    this.from = from;
    this.to = to;
  }

  public ConnectionState from() {
    return from;
  }

  public ConnectionState to() {
    return to;
  }

  /** The stop transition out of {@code s}; closed has none because it is already final. */
  public static Optional<ConnectionTransition> stopFrom(ConnectionState s) {
    return switch (s) {
      case DISCONNECTED -> Optional.of(STOPPED_DISCONNECTED);
      case CONNECTING -> Optional.of(STOPPED_CONNECTING);
      case CONNECTED -> Optional.of(STOPPED_CONNECTED);
      case RECONNECTING -> Optional.of(STOPPED_RECONNECTING);
      case CLOSED -> Optional.empty();
    };
  }

  /** Checks that this transition may leave {@code current}; returns the state to move to. */
  public ConnectionState apply(ConnectionState current) {
    if (current != from) {
      throw new FlowsException(
          ErrorCode.INVALID_TRANSITION,
          "connection transition " + this + " needs " + from.wire() + " but is " + current.wire(),
          name(),
          "this is a bug in the MCP transport; report it");
    }
    return to;
  }

  /** Whether a transition from {@code from} to {@code to} is declared. */
  public static boolean declared(ConnectionState from, ConnectionState to) {
    return Arrays.stream(values()).anyMatch(t -> t.from == from && t.to == to);
  }
}
