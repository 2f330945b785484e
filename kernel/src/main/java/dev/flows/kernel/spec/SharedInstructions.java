package dev.flows.kernel.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.json.JsonInterner;
import java.util.Map;
import java.util.Set;

/**
 * The copy of an agent instruction a {@link StepBody.Agent} keeps, with its large, commonly
 * repeated parts shared between specs: a flow body's MCP inventory ({@code mcp}, a few KB with each
 * stdio server's command line and class path), an MCP call's {@code connection}, and a flow's
 * {@code origin} (which carries the whole source of a source flow). A worker holding 10,000 runs of
 * one flow would otherwise keep 10,000 parsed copies of them; now it keeps one.
 *
 * <p>Nothing mutates an instruction or any node in it once a spec holds it: the executors and the
 * flow body runner only read it ({@code path}/{@code get}), {@code RunSpecJson} and {@code
 * Lowering} only link it into new trees ({@code set} on the new parent), and the journals keep or
 * serialize those trees without editing them. Anything that needs a changed instruction must build
 * a new one, never edit the one a spec holds: a shared subtree edited would change every run that
 * holds it.
 */
final class SharedInstructions {
  /**
   * How many distinct shared subtrees are kept for reuse (least recently used evicted). A worker
   * sees one inventory and one origin per flow version and one connection per MCP server, so this
   * covers hundreds of flows; at a few KB each it bounds the pool to about a MiB.
   */
  static final int MAX_SHARED_SUBTREES = 256;

  private static final String INVENTORY = "mcp";
  private static final String CONNECTION = "connection";
  private static final String ORIGIN = "origin";

  /** The instruction fields whose object values are shared. */
  static final Set<String> SHARED_FIELDS = Set.of(INVENTORY, CONNECTION, ORIGIN);

  private static final JsonInterner POOL = new JsonInterner(MAX_SHARED_SUBTREES);

  private SharedInstructions() {}

  /**
   * A copy of {@code instruction} that shares no node with it: its shared fields are canonical
   * instances from the pool, everything else is a deep copy.
   */
  static JsonNode copyOf(JsonNode instruction) {
    if (!(instruction instanceof ObjectNode o)) {
      return instruction.deepCopy();
    }
    ObjectNode copy = o.objectNode();
    for (Map.Entry<String, JsonNode> f : o.properties()) {
      JsonNode v = f.getValue();
      copy.set(
          f.getKey(),
          !SHARED_FIELDS.contains(f.getKey()) || !v.isObject()
              ? v.deepCopy()
              : f.getKey().equals(INVENTORY)
                  ? POOL.intern(v, SharedInstructions::inventory)
                  : POOL.intern(v));
    }
    return copy;
  }

  /**
   * A fresh copy of an inventory about to become canonical. Its per-server {@code connection}
   * objects are themselves taken from the pool, so the connection an {@code f.mcp} call copies from
   * the inventory into its child's instruction is the very same instance.
   */
  private static JsonNode inventory(JsonNode tree) {
    JsonNode copy = tree.deepCopy();
    for (Map.Entry<String, JsonNode> server : copy.properties()) {
      if (server.getValue() instanceof ObjectNode s
          && s.get(CONNECTION) instanceof ObjectNode connection) {
        s.set(CONNECTION, POOL.intern(connection));
      }
    }
    return copy;
  }
}
