package dev.flows.examples.servers;

import java.util.Map;
import java.util.Optional;

/**
 * One {@code tools/call} as an example tool sees it, whichever revision carried it: the session it
 * came in ("" on 2026-07-28, which has none), its arguments and its {@code _meta}; on 2026-07-28 a
 * call re-issued after {@code input_required} also carries the client's {@code inputResponses} and
 * the {@code requestState} it echoes.
 */
public record ToolCall(
    String sessionId,
    Map<String, Object> arguments,
    Map<String, Object> meta,
    Map<String, Object> inputResponses,
    Optional<String> requestState) {
  public ToolCall {
    arguments = arguments == null ? Map.of() : arguments;
    meta = meta == null ? Map.of() : meta;
    inputResponses = inputResponses == null ? Map.of() : inputResponses;
    requestState = requestState == null ? Optional.empty() : requestState;
  }

  /** A call without answers to input requests (every 2025 call, a first 2026-07-28 call). */
  public ToolCall(String sessionId, Map<String, Object> arguments, Map<String, Object> meta) {
    this(sessionId, arguments, meta, Map.of(), Optional.empty());
  }
}
