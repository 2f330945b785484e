package dev.flows.ops.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The class-path flows the benchmark runs. Bodies running in the benchmark's own JVM leave timings
 * in the static collectors; bodies in worker child JVMs leave nothing (the benchmark reads the
 * journal instead).
 */
public final class BenchFlows {
  public static final String STDIO = "stdio";
  public static final String HTTP = "http";

  /** The task test server (Streamable HTTP) of the tasks section. */
  public static final String TASKS = "tasks";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** Body entry time (System.nanoTime) by the input's {@code id}: the first dispatch. */
  static final Map<String, Long> FIRST_DISPATCH = new ConcurrentHashMap<>();

  /** When the body of {@link Steps} returned (System.nanoTime) by the input's {@code id}. */
  static final Map<String, Long> BODY_RETURNED = new ConcurrentHashMap<>();

  /** Nanoseconds of every durable f.mcp call a body made, as the body saw it. */
  static final ConcurrentLinkedQueue<Long> MCP_CALL_NANOS = new ConcurrentLinkedQueue<>();

  private BenchFlows() {}

  // One instance each: an engine's resolver refuses a second, different flow of the same name.
  static final Steps STEPS = new Steps();
  static final Mcp MCP = new Mcp();
  static final Slow SLOW = new Slow();
  static final Hold HOLD = new Hold();
  static final Sleeper SLEEPER = new Sleeper();
  static final Task TASK = new Task();

  public static List<Flow> all() {
    return List.of(STEPS, MCP, SLOW, HOLD, SLEEPER, TASK);
  }

  /** {@code n} no-op {@code f.step}s. */
  public static final class Steps implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("bench-steps").version("1").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      FIRST_DISPATCH.putIfAbsent(input.path("id").asText(), System.nanoTime());
      int n = input.path("n").asInt();
      for (int i = 0; i < n; i++) {
        int v = i;
        f.step("s" + i, () -> v);
      }
      BODY_RETURNED.put(input.path("id").asText(), System.nanoTime());
      return JSON.numberNode(n);
    }
  }

  /** {@code n} durable calls of the no-op tool on {@code server}. */
  public static final class Mcp implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("bench-mcp").version("1").mcp(STDIO, HTTP).build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      if (input.has("id")) {
        FIRST_DISPATCH.putIfAbsent(input.path("id").asText(), System.nanoTime());
      }
      String server = input.path("server").asText();
      int n = input.path("n").asInt();
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        McpStages.callStarted();
        f.mcp(server).tool("noop").call(Map.of());
        McpStages.callEnded();
        MCP_CALL_NANOS.add(System.nanoTime() - t0);
        McpStages.afterCall();
      }
      return JSON.numberNode(n);
    }
  }

  /** One durable call of the test server's {@code sleep} tool: a body that waits. */
  public static final class Slow implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("bench-slow").version("1").mcp(STDIO).build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      f.mcp(STDIO).tool("sleep").call(Map.of("ms", input.path("ms").asLong()));
      return JSON.nullNode();
    }
  }

  /** A body that holds its attempt (and lease) for {@code ms}: the victim of the recovery test. */
  public static final class Hold implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("bench-hold").version("1").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) throws InterruptedException {
      Thread.sleep(input.path("ms").asLong());
      return JSON.nullNode();
    }
  }

  /** A durable timer until {@code input.until}: a body that sleeps holding nothing. */
  public static final class Sleeper implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("bench-sleeper").version("1").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      f.sleepUntil(java.time.Instant.parse(input.path("until").asText()));
      return JSON.nullNode();
    }
  }

  /**
   * One durable call of the task server's {@code slow} tool, made as a task that works {@code ms}
   * and hints polls every {@code pollMs}.
   */
  public static final class Task implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("bench-task").version("1").mcp(TASKS).build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      return JSON.textNode(
          f.mcp(TASKS)
              .tool("slow")
              .call(
                  Map.of("ms", input.path("ms").asLong(), "pollMs", input.path("pollMs").asLong()))
              .text());
    }
  }
}
