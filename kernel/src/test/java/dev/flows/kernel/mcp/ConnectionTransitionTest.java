package dev.flows.kernel.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.FlowsException;
import org.junit.jupiter.api.Test;

class ConnectionTransitionTest {

  @Test
  void everyStateButClosedHasAStopTransitionIntoClosed() {
    for (ConnectionState s : ConnectionState.values()) {
      if (s == ConnectionState.CLOSED) {
        assertThat(ConnectionTransition.stopFrom(s)).isEmpty();
      } else {
        assertThat(ConnectionTransition.stopFrom(s))
            .hasValueSatisfying(t -> assertThat(t.apply(s)).isEqualTo(ConnectionState.CLOSED));
      }
    }
  }

  @Test
  void theHappyPathAndAReconnectAreDeclared() {
    ConnectionState s = ConnectionState.DISCONNECTED;
    s = ConnectionTransition.CONNECT.apply(s);
    s = ConnectionTransition.CONNECTED_OK.apply(s);
    s = ConnectionTransition.LOST.apply(s);
    s = ConnectionTransition.RECONNECTED.apply(s);
    assertThat(s).isEqualTo(ConnectionState.CONNECTED);
  }

  @Test
  void anUndeclaredTransitionIsRefusedWithInvalidTransition() {
    assertThatThrownBy(() -> ConnectionTransition.RECONNECTED.apply(ConnectionState.CLOSED))
        .isInstanceOf(FlowsException.class)
        .hasMessageContaining("needs reconnecting but is closed");
    assertThat(ConnectionTransition.declared(ConnectionState.CLOSED, ConnectionState.CONNECTING))
        .isFalse();
    assertThat(ConnectionTransition.declared(ConnectionState.CONNECTED, ConnectionState.CLOSED))
        .isTrue();
  }

  @Test
  void eachDiagnosticHasTheStableWireNameOfSurface() {
    assertThat(java.util.Arrays.stream(McpDiagnostic.values()).map(McpDiagnostic::wire))
        .containsExactly(
            "spawn_failed",
            "handshake_timeout",
            "handshake_rejected",
            "auth_failed",
            "mcp_disconnected",
            "mcp_unknown_tool",
            "mcp_tool_error",
            "mcp_result_unavailable",
            "payload_too_large");
  }
}
