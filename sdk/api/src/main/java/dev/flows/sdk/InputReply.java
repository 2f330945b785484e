package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.json.Jackson;
import java.util.Objects;

/**
 * What an {@link Ctx.InputHandler} answers to one request a server made for input: the form's
 * content ({@code {}} for a URL that was visited), or a decline.
 */
public sealed interface InputReply {

  /** The request is accepted with {@code content}, which must satisfy the requested schema. */
  record Accept(JsonNode content) implements InputReply {
    public Accept {
      Objects.requireNonNull(content, "content");
    }
  }

  /** The request is declined: the server decides what a declined call answers. */
  record Decline() implements InputReply {}

  /** Accepts with {@code content}: a JSON object or anything Jackson turns into one. */
  static InputReply accept(Object content) {
    return new Accept(Jackson.mapper().valueToTree(content));
  }

  static InputReply decline() {
    return new Decline();
  }
}
