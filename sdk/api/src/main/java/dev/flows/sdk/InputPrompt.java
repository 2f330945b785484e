package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * One request a server made for input during a call ({@link Ctx.McpTool#onInput}): a form to fill
 * in, a URL for a person to visit, or another request kept as the server wrote it.
 */
public sealed interface InputPrompt {

  /** The request exactly as the server sent it ({@code {"method": …, "params": …}}). */
  JsonNode raw();

  /** A form: {@code requestedSchema} is the JSON schema the answer must satisfy. */
  record Form(String message, JsonNode requestedSchema, JsonNode raw) implements InputPrompt {
    public Form {
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(requestedSchema, "requestedSchema");
      Objects.requireNonNull(raw, "raw");
    }
  }

  /** A person visits {@code url}; the answer carries no content ({@code {}}). */
  record Url(String message, String url, JsonNode raw) implements InputPrompt {
    public Url {
      Objects.requireNonNull(message, "message");
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(raw, "raw");
    }
  }

  /** Any other server-to-client request ({@code sampling/createMessage}, {@code roots/list}). */
  record Other(String method, JsonNode raw) implements InputPrompt {
    public Other {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(raw, "raw");
    }
  }
}
