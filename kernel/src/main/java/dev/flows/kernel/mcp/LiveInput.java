package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Answers a request for input a 2025 server sends during a call ({@code elicitation/create} on the
 * session, SEP-1036), while the call waits: the answer is the {@code ElicitResult} JSON to send
 * ({@link InputResponses#accept}, {@link InputResponses#decline}, ...). Called off the transport's
 * threads; it may block.
 */
@FunctionalInterface
public interface LiveInput {
  JsonNode answer(InputRequest request);
}
