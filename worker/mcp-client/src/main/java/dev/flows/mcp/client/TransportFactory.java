package dev.flows.mcp.client;

import dev.flows.kernel.mcp.McpProtocol;
import io.modelcontextprotocol.spec.McpClientTransport;
import java.util.Optional;

/**
 * Makes a fresh SDK transport for each (re)connect attempt of one server: the 2025 session
 * transport, and (when the server may speak it) the 2026-07-28 one.
 */
@FunctionalInterface
public interface TransportFactory {
  McpClientTransport create(LossListener onLost);

  /** The stateless 2026-07-28 transport, when this server is offered it first. */
  default Optional<ModernTransport> modern(LossListener onLost) {
    return Optional.empty();
  }

  /** Which revisions this server may be spoken to in. */
  default McpProtocol protocol() {
    return McpProtocol.V2025_11_25;
  }

  /** A 2026-07-28 transport and what releases it (a process, nothing for HTTP). */
  record ModernTransport(
      io.modelcontextprotocol.modern.client.transport.McpClientTransport transport,
      AutoCloseable closer) {}
}
