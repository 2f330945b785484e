package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * A tool call a model proposed, before it is sent: what an {@link ApprovalRule} decides on. {@code
 * arguments} is the JSON object the model wrote.
 */
public record ProposedCall(String server, String tool, JsonNode arguments) {
  public ProposedCall {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(arguments, "arguments");
  }
}
