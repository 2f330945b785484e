package dev.flows.mcp.client;

import io.modelcontextprotocol.spec.McpClientTransport;

/** Makes a fresh SDK transport for each (re)connect attempt of one server. */
@FunctionalInterface
public interface TransportFactory {
  McpClientTransport create(LossListener onLost);
}
