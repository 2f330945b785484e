package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * One request a server made for input, inside an {@code input_required} answer or an {@code
 * input_required} task ({@code inputRequests}). Form and URL elicitations are understood; any other
 * kind (sampling, roots) is kept as the server wrote it. The answer for each is an {@code
 * ElicitResult} (see {@link InputResponses}).
 */
public sealed interface InputRequest {

  /** The request exactly as the server sent it ({@code {"method": …, "params": …}}). */
  JsonNode raw();

  /**
   * The request {@code raw} stands for: an {@code elicitation/create} in URL mode is a {@link Url},
   * any other {@code elicitation/create} a {@link Form} (an empty schema when it has none),
   * anything else {@link Other}.
   */
  static InputRequest of(JsonNode raw) {
    String method = raw.path("method").asText();
    JsonNode p = raw.path("params");
    if (method.equals("elicitation/create") && p.path("mode").asText().equals("url")) {
      return new Url(p.path("message").asText(), p.path("url").asText(), raw);
    }
    if (method.equals("elicitation/create")) {
      return new Form(
          p.path("message").asText(),
          p.path("requestedSchema").isObject()
              ? p.get("requestedSchema")
              : com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode(),
          raw);
    }
    return new Other(method, raw);
  }

  /** A form elicitation: {@code requestedSchema} is the JSON schema the answer must satisfy. */
  record Form(String message, JsonNode requestedSchema, JsonNode raw) implements InputRequest {
    public Form {
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(requestedSchema, "requestedSchema");
      Objects.requireNonNull(raw, "raw");
    }
  }

  /** A URL elicitation: a person visits {@code url}; the answer carries no content. */
  record Url(String message, String url, JsonNode raw) implements InputRequest {
    public Url {
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(raw, "raw");
    }
  }

  /** Any other server-to-client request ({@code sampling/createMessage}, {@code roots/list}). */
  record Other(String method, JsonNode raw) implements InputRequest {
    public Other {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(raw, "raw");
    }
  }
}
