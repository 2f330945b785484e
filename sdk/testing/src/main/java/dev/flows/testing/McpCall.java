package dev.flows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.RunId;
import java.util.Optional;

/**
 * One MCP call of a run (or of a run under it), as the journal holds it: the call's own run, the
 * server, tool and arguments, what the journal knows of its outcome, and the tool's result once
 * confirmed ({@code {"content":[…],"structuredContent":{…},"isError":false}}).
 */
public record McpCall(
    RunId callRun,
    String server,
    String tool,
    JsonNode args,
    McpCall.Outcome outcome,
    Optional<JsonNode> result) {

  /** What the journal knows of the call. */
  public enum Outcome {
    /** The server answered and the answer is journaled (a tool error too: see the result). */
    CONFIRMED,
    /** Recorded as about to be sent, never confirmed: it may or may not have happened. */
    UNKNOWN,
    /** Not sent yet. */
    NOT_SENT
  }
}
