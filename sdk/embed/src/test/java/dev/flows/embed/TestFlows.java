package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** Class-path flows the embedding tests register, and the builder options they share. */
final class TestFlows {
  private TestFlows() {}

  static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** A builder on a fresh database whose worker (if any) polls briskly. */
  static FlowsBuilder on(TestDatabase.Fresh db) {
    return Flows.builder().jdbcUrl(db.jdbcUrl());
  }

  /** {@code value} as the JSON input of a {@code Flow<JsonNode, JsonNode>}. */
  static JsonNode json(Object value) {
    return dev.flows.kernel.json.Jackson.mapper().valueToTree(value);
  }

  static FlowsBuilder withWorker(FlowsBuilder b) {
    return b.worker(w -> w.capacity(4).pollInterval(Duration.ofMillis(50)));
  }

  /** No servers: answers its input's text, upper-cased, after one memo. */
  static final class Shout implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("shout").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      String text = f.step("upper", () -> input.path("text").asText().toUpperCase()).asText();
      return JSON.objectNode().put("text", text);
    }
  }

  /** The result type {@link Shout}'s output reads as, and {@link TypedShout}'s output. */
  record Shouted(String text) {}

  /** {@link TypedShout}'s input. */
  record Words(String text) {}

  /** As {@link Shout}, typed: a record in, a record out, through a typed step. */
  static final class TypedShout implements Flow<Words, Shouted> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("typed-shout").build();
    }

    @Override
    public Shouted run(Ctx f, Words input) {
      return new Shouted(f.step("upper", String.class, () -> input.text().toUpperCase()));
    }
  }

  /** Throws: the run fails {@code flow_failed}. */
  static final class Boom implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("boom").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      throw new IllegalStateException("no stock for " + input.path("order").asText());
    }
  }

  /** Throws the public {@code FlowsError} with the code given as input {@code code}. */
  static final class Refuses implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("refuses").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      throw new FlowsError(
          input.path("code").asText(), "the order is closed", "order o-7", "open it", false, null);
    }
  }

  /**
   * Calls {@code die} on server {@code fragile}: the server exits during the call, so its outcome
   * is unknown, and the tool is not safe to send again: the call parks, and the body with it.
   */
  static final class Fragile implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("fragile").mcp("fragile").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      return f.mcp("fragile").tool("die").call(Map.of()).output();
    }
  }

  /** Blocks in its body while {@link #hold} is set, after counting down {@link #started}. */
  static final class Blocker implements Flow<JsonNode, JsonNode> {
    static volatile boolean hold = true;
    static volatile CountDownLatch started = new CountDownLatch(1);

    @Override
    public FlowHeader header() {
      return FlowHeader.named("blocker").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) throws InterruptedException {
      if (hold) {
        started.countDown();
        Thread.sleep(Duration.ofMinutes(5));
      }
      return JSON.objectNode().put("done", true);
    }
  }

  /**
   * On server {@code web}: {@code {"add": NAME}} adds a tool NAME to the server; {@code {"call":
   * NAME}} calls it (the tool answers its own name).
   */
  static final class Grower implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("grower").mcp("web").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      String text =
          input.has("add")
              ? f.mcp("web")
                  .tool("add_tool")
                  .call(Map.of("name", input.path("add").asText()))
                  .text()
              : f.mcp("web").tool(input.path("call").asText()).call(Map.of()).text();
      return JSON.textNode(text);
    }
  }
}
