package dev.flows.examples.servers;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Remembers, per idempotency key, the first result a tool answered, so a repeated request with the
 * same key gets that original result and nothing is performed again. It lives as long as the server
 * process and is shared by all of its sessions: a client whose session was lost (a worker died, the
 * session expired) must still find its earlier answer.
 */
public final class IdempotencyLedger {
  /** The {@code _meta} entry of a {@code tools/call} request carrying the key. */
  public static final String META_KEY = "dev.flows/idempotency-key";

  /** Also accepted, for clients that use a plain name. */
  public static final String META_KEY_PLAIN = "idempotencyKey";

  /** Set to {@code true} in a result's {@code _meta} when it is a remembered answer. */
  public static final String META_REPLAYED = "dev.flows/idempotent-replay";

  static final int MAX_KEY_CHARS = 255;

  private final int maxKeys;
  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  public IdempotencyLedger(int maxKeys) {
    this.maxKeys = maxKeys;
  }

  /** How often a key was asked for and how often its work was done (at most once). */
  public record Count(String tool, int requests, int performed) {}

  /** The key in the request's {@code _meta}, if it has one. */
  public static Optional<String> keyOf(CallToolRequest request) {
    return keyOf(request.meta());
  }

  /** As {@link #keyOf(CallToolRequest)}, from a request's {@code _meta} (null when it had none). */
  public static Optional<String> keyOf(Map<String, Object> meta) {
    if (meta == null) {
      return Optional.empty();
    }
    Object v = meta.containsKey(META_KEY) ? meta.get(META_KEY) : meta.get(META_KEY_PLAIN);
    if (v == null) {
      return Optional.empty();
    }
    if (!(v instanceof String s) || s.isBlank() || s.length() > MAX_KEY_CHARS) {
      throw new ToolError(
          "_meta \"" + META_KEY + "\" must be a non-blank string of at most " + MAX_KEY_CHARS);
    }
    return Optional.of(s);
  }

  /**
   * Runs {@code work} unless {@code key} was already performed, in which case its original result
   * is answered. Concurrent requests with one key wait for each other, so the work runs once. A key
   * performed for one tool and arguments and reused for others is refused: the caller has a bug,
   * and answering either result would hide it. A refusal from {@code work} (a {@link ToolError} or
   * an error result) records no result, so a corrected retry with the same key may perform.
   */
  public CallToolResult perform(
      String key, String tool, Map<String, Object> arguments, Supplier<CallToolResult> work) {
    JsonNode args = ToolKit.JSON.valueToTree(arguments == null ? Map.of() : arguments);
    Entry e = entries.get(key);
    if (e == null) {
      // Fail closed when full: forgetting an old key would silently break at-most-once for it.
      if (entries.size() >= maxKeys) {
        throw new ToolError("idempotency ledger is full (" + maxKeys + " keys); refusing new keys");
      }
      e = entries.computeIfAbsent(key, k -> new Entry(tool, args));
    }
    synchronized (e) {
      e.requests++;
      if (e.result != null) {
        if (!e.tool.equals(tool) || !e.arguments.equals(args)) {
          throw new ToolError(
              "idempotency key "
                  + key
                  + " was used for "
                  + e.tool
                  + " with other arguments; use a new key for a different request");
        }
        return replayed(e.result);
      }
      // Nothing performed under this key yet (an earlier attempt was refused): bind it anew.
      e.tool = tool;
      e.arguments = args;
      CallToolResult r = work.get();
      if (!Boolean.TRUE.equals(r.isError())) {
        e.result = r;
        e.performed++;
      }
      return r;
    }
  }

  private static CallToolResult replayed(CallToolResult original) {
    Map<String, Object> meta = new LinkedHashMap<>();
    if (original.meta() != null) {
      meta.putAll(original.meta());
    }
    meta.put(META_REPLAYED, true);
    return new CallToolResult(
        original.content(), original.isError(), original.structuredContent(), meta);
  }

  /** Every key seen, in key order. */
  public Map<String, Count> counts() {
    Map<String, Count> out = new TreeMap<>();
    entries.forEach(
        (k, e) -> {
          synchronized (e) {
            out.put(k, new Count(e.tool, e.requests, e.performed));
          }
        });
    return out;
  }

  private static final class Entry {
    String tool;
    JsonNode arguments;
    int requests;
    int performed;
    CallToolResult result;

    Entry(String tool, JsonNode arguments) {
      this.tool = tool;
      this.arguments = arguments;
    }
  }
}
