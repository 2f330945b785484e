package dev.flows.worker.mcp;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;

/** The SDK's JSON mapper (Jackson 2, found through ServiceLoader), shared by the MCP client. */
final class Json {
  static final McpJsonMapper MAPPER = McpJsonDefaults.getMapper();

  private Json() {}
}
