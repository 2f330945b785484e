package dev.flows.mcp.client;

import dev.flows.kernel.json.Jackson;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;

/**
 * The SDK's JSON mapper (Jackson 2), shared by the MCP client, on flows' shared buffer pool (see
 * {@link Jackson}).
 */
final class Json {
  static final McpJsonMapper MAPPER = new JacksonMcpJsonMapper(Jackson.mapper());

  private Json() {}
}
