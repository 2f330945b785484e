package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.InputRequest;
import dev.flows.kernel.mcp.LiveInput;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The {@code elicitation/create} requests a 2025 session's server sends during calls. A 2025
 * request names no call, so it goes to the one call in flight on the session: a durable call's
 * {@link LiveInput} answers it (none: declined at once, since a session-bound request cannot
 * survive a crash); a plain call gets the schema's defaults when the connection answers with
 * defaults, else a decline. With several calls in flight no one can tell which asked: declined.
 */
final class LiveElicitations {
  private static final Logger LOG = LoggerFactory.getLogger(LiveElicitations.class);
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final String server;
  private final boolean defaults;
  private final Set<InFlight> inFlight = ConcurrentHashMap.newKeySet();

  /** One call in flight; {@code durable}: made with durable input (an engine call). */
  private static final class InFlight {
    final boolean durable;
    final Optional<LiveInput> live;

    InFlight(boolean durable, Optional<LiveInput> live) {
      this.durable = durable;
      this.live = live;
    }
  }

  LiveElicitations(String server, boolean defaults) {
    this.server = server;
    this.defaults = defaults;
  }

  /** Sends {@code call}, known as in flight until it ends. */
  <T> CompletableFuture<T> track(
      boolean durable, Optional<LiveInput> live, Supplier<CompletableFuture<T>> call) {
    InFlight f = new InFlight(durable, live);
    inFlight.add(f);
    CompletableFuture<T> sent;
    try {
      sent = call.get();
    } catch (RuntimeException e) {
      inFlight.remove(f);
      throw e;
    }
    sent.whenComplete((r, e) -> inFlight.remove(f));
    return sent;
  }

  Mono<McpSchema.ElicitResult> form(McpSchema.ElicitFormRequest req) {
    ObjectNode params = JSON.objectNode().put("mode", "form").put("message", req.message());
    params.set("requestedSchema", Jackson.mapper().valueToTree(req.requestedSchema()));
    return answer(params, true);
  }

  Mono<McpSchema.ElicitResult> url(McpSchema.ElicitUrlRequest req) {
    ObjectNode params =
        JSON.objectNode().put("mode", "url").put("message", req.message()).put("url", req.url());
    if (req.elicitationId() != null) {
      params.put("elicitationId", req.elicitationId());
    }
    return answer(params, false);
  }

  private Mono<McpSchema.ElicitResult> answer(ObjectNode params, boolean form) {
    List<InFlight> now = List.copyOf(inFlight);
    if (now.size() == 1 && now.getFirst().live.isPresent()) {
      LiveInput live = now.getFirst().live.get();
      ObjectNode raw = JSON.objectNode().put("method", "elicitation/create");
      raw.set("params", params);
      // The answer may take a journal write: never on the transport's thread.
      return Mono.fromCallable(() -> result(live.answer(InputRequest.of(raw))))
          .subscribeOn(Schedulers.boundedElastic());
    }
    boolean plain = now.stream().noneMatch(f -> f.durable);
    if (defaults && form && plain) {
      // The SDK fills the requested schema's defaults into an accepted form (SEP-1034).
      return Mono.just(new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of()));
    }
    LOG.info(
        "{}: declined elicitation/create ({}): {}",
        server,
        params.path("message").asText(),
        now.size() > 1
            ? now.size() + " calls in flight on the session, none can be told to have asked"
            : "no answer for a request bound to a live session");
    return Mono.just(new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null));
  }

  /** An {@code ElicitResult} JSON ({@code {action, content?}}) as the SDK's record. */
  static McpSchema.ElicitResult result(JsonNode r) {
    McpSchema.ElicitResult.Action action =
        McpSchema.ElicitResult.Action.valueOf(
            r.path("action").asText("decline").toUpperCase(Locale.ROOT));
    @SuppressWarnings("unchecked")
    Map<String, Object> content =
        r.path("content").isObject()
            ? Jackson.mapper().convertValue(r.path("content"), Map.class)
            : null;
    return new McpSchema.ElicitResult(action, content);
  }
}
