package dev.flows.examples.servers;

import java.util.Map;

/**
 * One {@code tools/call} as an example tool sees it, whichever revision carried it: the session it
 * came in ("" on 2026-07-28, which has none), its arguments and its {@code _meta}.
 */
public record ToolCall(String sessionId, Map<String, Object> arguments, Map<String, Object> meta) {
  public ToolCall {
    arguments = arguments == null ? Map.of() : arguments;
    meta = meta == null ? Map.of() : meta;
  }
}
