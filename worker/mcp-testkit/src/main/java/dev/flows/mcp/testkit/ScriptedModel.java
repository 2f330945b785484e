package dev.flows.mcp.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.json.Jackson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A script of model answers, one turn per request, in order: text (with usage), tool calls, a rate
 * limit (429 with Retry-After), a provider error, or a content-filter refusal. {@link
 * ScriptedModelServer} serves it over OpenAI's chat completions API. The JSON form (for {@code
 * flows-examples/bin/model-server}) is {@code {"turns":[{"text","inputTokens"?,"outputTokens"?} |
 * {"toolCalls":[{"id","name","arguments"}],"inputTokens"?,"outputTokens"?} |
 * {"status","message","retryAfterSeconds"?} | {"refused"}]}}.
 */
public record ScriptedModel(List<Turn> turns) {
  public ScriptedModel {
    turns = List.copyOf(turns);
  }

  public static ScriptedModel of(Turn... turns) {
    return new ScriptedModel(List.of(turns));
  }

  /** One answer. */
  public sealed interface Turn {
    static Turn text(String text) {
      return new Text(text, 10, Math.max(1, text.length() / 4));
    }

    static Turn text(String text, long inputTokens, long outputTokens) {
      return new Text(text, inputTokens, outputTokens);
    }

    static Turn rateLimited(Duration retryAfter) {
      return new Failure(429, "Rate limit reached; try again later.", Optional.of(retryAfter));
    }

    static Turn error(int status, String message) {
      return new Failure(status, message, Optional.empty());
    }

    static Turn refused(String text) {
      return new Refused(text);
    }

    static Turn toolCalls(ToolCall... calls) {
      return new ToolCalls(List.of(calls));
    }
  }

  public record Text(String text, long inputTokens, long outputTokens) implements Turn {}

  /** Tool calls the model asks for, with the usage the answer reports. */
  public record ToolCalls(List<ToolCall> calls, long inputTokens, long outputTokens)
      implements Turn {
    static final long DEFAULT_INPUT_TOKENS = 10;
    static final long DEFAULT_OUTPUT_TOKENS = 5;

    public ToolCalls {
      calls = List.copyOf(calls);
    }

    public ToolCalls(List<ToolCall> calls) {
      this(calls, DEFAULT_INPUT_TOKENS, DEFAULT_OUTPUT_TOKENS);
    }
  }

  /**
   * One call; {@code arguments} a JSON object, or a string holding the model's JSON text as it sent
   * it (a fixture keeps it so).
   */
  public record ToolCall(String id, String name, JsonNode arguments) {}

  public record Failure(int status, String message, Optional<Duration> retryAfter)
      implements Turn {}

  public record Refused(String text) implements Turn {}

  /**
   * Reads a fixture {@code flows runs export-fixture RUN} wrote: a run's model answers, in the JSON
   * form of a script, so a test replays them.
   */
  public static ScriptedModel fromFixture(Path fixture) throws IOException {
    return fromFile(fixture);
  }

  /** Reads a fixture already parsed ({@link #fromFixture(Path)}). */
  public static ScriptedModel fromFixture(JsonNode fixture) {
    return fromJson(fixture);
  }

  /** Reads the JSON form from {@code file}. */
  public static ScriptedModel fromFile(Path file) throws IOException {
    return fromJson(Jackson.mapper().readTree(Files.readString(file)));
  }

  public static ScriptedModel fromJson(JsonNode script) {
    List<Turn> turns = new ArrayList<>();
    for (JsonNode t : script.path("turns")) {
      turns.add(turn(t));
    }
    return new ScriptedModel(turns);
  }

  private static Turn turn(JsonNode t) {
    if (t.has("text")) {
      return new Text(
          t.get("text").asText(),
          t.path("inputTokens").asLong(10),
          t.path("outputTokens").asLong(t.get("text").asText().length() / 4 + 1));
    }
    if (t.has("toolCalls")) {
      List<ToolCall> calls = new ArrayList<>();
      for (JsonNode c : t.get("toolCalls")) {
        calls.add(
            new ToolCall(
                c.path("id").asText(),
                c.path("name").asText(),
                c.has("arguments") ? c.get("arguments") : JsonNodeFactory.instance.objectNode()));
      }
      return new ToolCalls(
          calls,
          t.path("inputTokens").asLong(ToolCalls.DEFAULT_INPUT_TOKENS),
          t.path("outputTokens").asLong(ToolCalls.DEFAULT_OUTPUT_TOKENS));
    }
    if (t.has("status")) {
      return new Failure(
          t.get("status").asInt(),
          t.path("message").asText("scripted failure"),
          t.has("retryAfterSeconds")
              ? Optional.of(
                  Duration.ofMillis((long) (t.get("retryAfterSeconds").asDouble() * 1000)))
              : Optional.empty());
    }
    if (t.has("refused")) {
      return new Refused(t.get("refused").asText());
    }
    throw new IllegalArgumentException("a turn has text, toolCalls, status or refused: " + t);
  }

  /** The JSON form of a turn's tool-call arguments, as OpenAI sends them (a string). */
  static String arguments(ToolCall c) {
    return c.arguments().isTextual() ? c.arguments().asText() : c.arguments().toString();
  }

  static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }
}
