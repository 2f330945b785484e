package dev.flows.ops.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The flows of the growth section: a body asleep on a durable timer and one awaiting a signal, each
 * leaving the moment it resumed past its wait (wall clock, by the input's {@code id}).
 */
final class GrowthFlows {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** When each body went on past its wait, by input id. */
  static final Map<String, Instant> RESUMED = new ConcurrentHashMap<>();

  static final Nap NAP = new Nap();
  static final Waiter WAITER = new Waiter();

  private GrowthFlows() {}

  /** A durable timer until {@code input.until}. */
  static final class Nap implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("bench-nap").version("1").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      f.sleepUntil(Instant.parse(input.path("until").asText()));
      RESUMED.putIfAbsent(input.path("id").asText(), Instant.now());
      return JSON.nullNode();
    }
  }

  /** Awaits the signal {@code go} for up to a day. */
  static final class Waiter implements Flow<JsonNode, JsonNode> {
    static final String SIGNAL = "go";

    @Override
    public FlowHeader header() {
      return FlowHeader.named("bench-waiter").version("1").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      f.awaitSignal(SIGNAL, Duration.ofDays(1));
      RESUMED.putIfAbsent(input.path("id").asText(), Instant.now());
      return JSON.nullNode();
    }
  }
}
