package dev.flows.examples.flows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.examples.servers.IdempotencyLedger;
import dev.flows.kernel.journal.RunRef;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.McpResult;
import dev.flows.sdk.Pending;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs a flow body straight against live MCP clients, with no journal: each call is sent once, with
 * the idempotency key {@code <runId>:<position>} in {@code _meta} and answered with a receipt of
 * the runtime's shape. It checks that the example flows and servers fit together (tool names,
 * arguments, result shapes); durability is the runtime's business and tested there.
 */
final class DirectCtx implements Ctx {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RunRef runId;
  private final FlowHeader header;
  private final JsonNode input;
  private final Map<String, McpSyncClient> servers;
  private final List<JsonNode> receipts = new ArrayList<>();
  private int position;

  DirectCtx(RunRef runId, FlowHeader header, JsonNode input, Map<String, McpSyncClient> servers) {
    this.runId = runId;
    this.header = header;
    this.input = input;
    this.servers = servers;
  }

  List<JsonNode> receipts() {
    return List.copyOf(receipts);
  }

  @Override
  public dev.flows.sdk.RunId runId() {
    return new dev.flows.sdk.RunId(runId.value());
  }

  @Override
  public JsonNode input() {
    return input;
  }

  @Override
  public dev.flows.sdk.AgentCall<String> agent(String model) {
    throw new AssertionError("the example flows run no agent; the runtime's tests cover f.agent");
  }

  @Override
  public dev.flows.sdk.LlmCall<String> llm(String model) {
    throw new AssertionError("the example flows call no model; the runtime's tests cover f.llm");
  }

  @Override
  public McpServer mcp(String server) {
    if (!header.mcp().contains(server)) {
      throw new AssertionError("the body calls " + server + ", which its header does not declare");
    }
    McpSyncClient client = servers.get(server);
    if (client == null) {
      throw new AssertionError("no client for declared server " + server);
    }
    return tool -> new DirectTool(server, client, tool);
  }

  /**
   * A tool handle that sends each call once: policies are the engine's business (tested there), so
   * the direct context accepts them and changes nothing.
   */
  private final class DirectTool implements McpTool {
    private final String server;
    private final McpSyncClient client;
    private final String tool;

    DirectTool(String server, McpSyncClient client, String tool) {
      this.server = server;
      this.client = client;
      this.tool = tool;
    }

    @Override
    public McpResult call(Object arguments) {
      return DirectCtx.this.call(server, client, tool, arguments);
    }

    /** Sent at once, in issue order: the result is there before the body waits for it. */
    @Override
    public Pending<McpResult> callAsync(Object arguments) {
      McpResult r = call(arguments);
      return () -> r;
    }

    @Override
    public McpTool timeout(java.time.Duration timeout) {
      return this;
    }

    @Override
    public McpTool retry(dev.flows.sdk.RetryPolicy policy) {
      return this;
    }

    @Override
    public McpTool onUnknownOutcome(dev.flows.sdk.UnknownOutcome decision) {
      return this;
    }

    @Override
    public McpTool onInput(InputHandler handler) {
      return this; // a 2025 session client: no server here asks for input
    }

    @Override
    public McpTool secret(String pointer) {
      return this; // nothing is journaled here
    }

    @Override
    public McpTool secretResult(String pointer) {
      return this;
    }

    @Override
    public McpTool tasks(dev.flows.sdk.TaskUse use) {
      return this;
    }

    @Override
    public McpTool needsApproval() {
      throw new AssertionError("the direct context has no journal to wait for an approval in");
    }
  }

  private McpResult call(String server, McpSyncClient client, String tool, Object arguments) {
    JsonNode in = JSON.valueToTree(arguments);
    String key = runId.value() + ":" + position++;
    @SuppressWarnings("unchecked")
    Map<String, Object> args = JSON.convertValue(in, Map.class);
    CallToolResult r =
        client.callTool(
            CallToolRequest.builder()
                .name(tool)
                .arguments(args)
                .meta(Map.of(IdempotencyLedger.META_KEY, key))
                .build());
    if (Boolean.TRUE.equals(r.isError())) {
      throw new AssertionError(server + "/" + tool + " answered an error: " + r.content());
    }
    ObjectNode output = JSON.createObjectNode();
    JsonNode wire = wire(r);
    output.set("content", wire.path("content"));
    if (wire.hasNonNull("structuredContent")) {
      output.set("structuredContent", wire.get("structuredContent"));
    }
    ObjectNode receipt = JSON.createObjectNode();
    receipt.put("type", "mcp");
    receipt.put("server", server);
    receipt.put("tool", tool);
    receipt.set("input", in);
    receipt.set("output", output);
    receipt.put("idempotencyKey", key);
    receipts.add(receipt);
    return new McpResult(receipt);
  }

  /** The result as it travels (the SDK's own mapper knows the content types' JSON shape). */
  private static JsonNode wire(CallToolResult r) {
    try {
      return JSON.readTree(McpJsonDefaults.getMapper().writeValueAsString(r));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public JsonNode step(String name, StepBody<?> body) {
    try {
      return JSON.valueToTree(body.get());
    } catch (Exception e) {
      throw new AssertionError("step " + name + " failed", e);
    }
  }

  @Override
  public <T> T step(String name, Class<T> type, StepBody<T> body) {
    return JSON.convertValue(step(name, body), type);
  }

  /** A step with a policy runs once here, as every step does (no journal, nothing to retry). */
  @Override
  public StepCall step(String name) {
    return new StepCall() {
      @Override
      public StepCall retry(dev.flows.sdk.RetryPolicy policy) {
        return this;
      }

      @Override
      public StepCall timeout(java.time.Duration timeout) {
        return this;
      }

      @Override
      public JsonNode call(StepBody<?> body) {
        return step(name, body);
      }

      @Override
      public <T> T call(Class<T> type, StepBody<T> body) {
        return step(name, type, body);
      }
    };
  }

  /** Every pending result here is already there: waiting is asking each for it. */
  @Override
  public List<Object> all(Pending<?>... pending) {
    List<Object> out = new java.util.ArrayList<>();
    for (Pending<?> p : pending) {
      out.add(p.get());
    }
    return out;
  }

  @Override
  public <T> List<T> all(List<? extends Pending<T>> pending) {
    return pending.stream().map(Pending::get).toList();
  }

  @Override
  public Pending<?> any(Pending<?>... pending) {
    return pending[0];
  }

  @Override
  public <T> Pending<T> any(List<? extends Pending<T>> pending) {
    return pending.getFirst();
  }

  @Override
  public FlowCall<Object, JsonNode> flow(String name) {
    throw new AssertionError("an example flow started a child flow; test it through the engine");
  }

  @Override
  public <I, O> FlowCall<I, O> flow(Class<? extends dev.flows.sdk.Flow<I, O>> type) {
    throw new AssertionError("an example flow started a child flow; test it through the engine");
  }

  /**
   * The example flows run no commands; this direct context checks MCP wiring only, so a command
   * here means an example changed and its test must move to the engine tests.
   */
  @Override
  public Command command(String... argv) {
    throw new AssertionError("an example flow ran a command; test it through the engine instead");
  }

  @Override
  public Command shell(String command) {
    throw new AssertionError("an example flow ran a command; test it through the engine instead");
  }

  @Override
  public void sleep(java.time.Duration duration) {
    throw new AssertionError("an example flow slept; test it through the engine instead");
  }

  @Override
  public void sleepUntil(java.time.Instant until) {
    throw new AssertionError("an example flow slept; test it through the engine instead");
  }

  @Override
  public java.util.Optional<JsonNode> awaitSignal(String name, java.time.Duration timeout) {
    throw new AssertionError(
        "an example flow awaited a signal; test it through the engine instead");
  }

  @Override
  public <T> java.util.Optional<T> awaitSignal(
      String name, Class<T> type, java.time.Duration timeout) {
    throw new AssertionError(
        "an example flow awaited a signal; test it through the engine instead");
  }

  @Override
  public java.time.Instant now() {
    return java.time.Instant.now();
  }

  @Override
  public java.util.UUID randomUUID() {
    return java.util.UUID.randomUUID();
  }

  @Override
  public double random() {
    return Math.random();
  }

  @Override
  public boolean patched(String id) {
    // Run directly, every example is new code: it takes every patch.
    return true;
  }

  @Override
  public void deprecatePatch(String id) {}
}
