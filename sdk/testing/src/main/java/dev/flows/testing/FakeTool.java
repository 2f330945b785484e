package dev.flows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * One tool of a {@link FakeMcpServer}: its handler, how it answers (at once, after a delay, as a
 * failure, or not at all: performed, then the connection dropped) and the calls it performed.
 */
public final class FakeTool {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The key the engine sends each call with, in {@code _meta}. */
  static final String IDEMPOTENCY_KEY = "dev.flows/idempotency-key";

  /** What the server answers a call. */
  sealed interface Answer {
    record Result(JsonNode result) implements Answer {}

    record Lost() implements Answer {}
  }

  private final String name;
  private final Function<JsonNode, ?> handler;
  private final List<JsonNode> calls = new CopyOnWriteArrayList<>();
  private final List<String> keys = new CopyOnWriteArrayList<>();
  private volatile Duration delay = Duration.ZERO;
  private volatile Optional<String> failure = Optional.empty();
  private volatile int outcomesToLose;
  private volatile boolean readOnly;
  private volatile boolean idempotent;

  FakeTool(String name, Function<JsonNode, ?> handler) {
    this.name = name;
    this.handler = handler;
  }

  public String name() {
    return name;
  }

  /** Each call answers after {@code wallTime} of real time (a slow server; not virtual time). */
  public FakeTool delayed(Duration wallTime) {
    this.delay = wallTime;
    return this;
  }

  /**
   * Each call answers an {@code isError} result with {@code message} (the handler is not run): the
   * step fails {@code mcp_tool_error}.
   */
  public FakeTool failing(String message) {
    this.failure = Optional.of(message);
    return this;
  }

  /** Answers again with the handler (undoes {@link #failing}). */
  public FakeTool succeeding() {
    this.failure = Optional.empty();
    return this;
  }

  /**
   * The next {@code calls} calls are performed (recorded, handler run) and then the connection is
   * dropped without an answer: the call's outcome is unknown to the engine.
   */
  public FakeTool losingOutcomes(int calls) {
    this.outcomesToLose = calls;
    return this;
  }

  /** Lists the tool with {@code readOnlyHint}: a call whose outcome was lost may be sent again. */
  public FakeTool readOnly() {
    this.readOnly = true;
    return this;
  }

  /** Lists the tool with {@code idempotentHint}: as {@link #readOnly()} for lost outcomes. */
  public FakeTool idempotent() {
    this.idempotent = true;
    return this;
  }

  /** The arguments of every call this tool performed, in order (lost answers included). */
  public List<JsonNode> calls() {
    return List.copyOf(calls);
  }

  /** The idempotency key of every call performed, in order. */
  public List<String> idempotencyKeys() {
    return List.copyOf(keys);
  }

  JsonNode descriptor() {
    ObjectNode t = JSON.createObjectNode().put("name", name);
    t.putObject("inputSchema").put("type", "object");
    if (readOnly || idempotent) {
      ObjectNode hints = t.putObject("annotations");
      if (readOnly) {
        hints.put("readOnlyHint", true);
      }
      if (idempotent) {
        hints.put("idempotentHint", true);
      }
    }
    return t;
  }

  synchronized Answer perform(JsonNode arguments, JsonNode meta) {
    calls.add(arguments.deepCopy());
    keys.add(meta.path(IDEMPOTENCY_KEY).asText(""));
    pause();
    ObjectNode result = JSON.createObjectNode();
    if (failure.isPresent()) {
      result.putArray("content").addObject().put("type", "text").put("text", failure.get());
      result.put("isError", true);
    } else {
      try {
        JsonNode value = JSON.valueToTree(handler.apply(arguments));
        result.putArray("content").addObject().put("type", "text").put("text", value.toString());
        if (value.isObject()) {
          result.set("structuredContent", value);
        }
        result.put("isError", false);
      } catch (ToolFailure f) {
        result.putArray("content").addObject().put("type", "text").put("text", f.getMessage());
        result.put("isError", true);
      }
    }
    if (outcomesToLose > 0) {
      outcomesToLose--;
      return new Answer.Lost();
    }
    return new Answer.Result(result);
  }

  private void pause() {
    if (delay.isPositive()) {
      try {
        Thread.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
