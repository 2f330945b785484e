package dev.flows.kernel.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A bounded pool of canonical JSON subtrees: {@link #intern} answers one shared instance for every
 * tree equal to it. A worker holding thousands of runs of the same flow otherwise keeps thousands
 * of copies of the same few KB (a flow's MCP inventory is embedded in every body step's spec).
 *
 * <p>Equality is structural and stricter than {@link JsonNode#equals}: object fields must also come
 * in the same order, so a shared instance reads back exactly as the tree it replaces (same
 * serialized text, same iteration order).
 *
 * <p>The pool keeps the {@code maxEntries} most recently used trees (LRU): a tree evicted is still
 * valid wherever it is referenced, it is only no longer handed out. Thread-safe; the lock covers
 * only the lookup (a hash computed before it, and an equality check that an identical instance
 * answers at once).
 *
 * <p>Jackson nodes are mutable: an interned tree is shared by every holder, so <b>no holder may
 * mutate it</b>. Callers intern only trees they treat as read-only values (see {@code
 * StepBody.Agent}).
 */
public final class JsonInterner {
  private final int maxEntries;
  private final Map<Key, JsonNode> pool;

  /**
   * @param maxEntries how many distinct trees are kept at most; at least 1
   */
  public JsonInterner(int maxEntries) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be at least 1, got " + maxEntries);
    }
    this.maxEntries = maxEntries;
    this.pool =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, JsonNode> eldest) {
            return size() > JsonInterner.this.maxEntries;
          }
        };
  }

  /**
   * The canonical instance equal to {@code node}. When there is none, {@code canonicalize} makes
   * one from {@code node} (it must answer a tree equal to {@code node} that no caller holds, e.g. a
   * deep copy, so a caller mutating its own tree later cannot reach the shared one), and that
   * becomes the canonical instance.
   */
  public JsonNode intern(JsonNode node, UnaryOperator<JsonNode> canonicalize) {
    Key probe = new Key(node);
    synchronized (pool) {
      JsonNode hit = pool.get(probe);
      if (hit != null) {
        return hit;
      }
    }
    // Built outside the lock: copying a few KB should not stall the other threads' lookups.
    JsonNode canonical = canonicalize.apply(node);
    synchronized (pool) {
      // Another thread may have put an equal tree meanwhile: keep the first, so all share it.
      JsonNode raced = pool.putIfAbsent(new Key(canonical, probe.hash), canonical);
      return raced != null ? raced : canonical;
    }
  }

  /** The canonical instance equal to {@code node}, a deep copy of it when there is none yet. */
  public JsonNode intern(JsonNode node) {
    return intern(node, JsonNode::deepCopy);
  }

  /** How many trees are kept now (for tests and diagnostics). */
  public int size() {
    synchronized (pool) {
      return pool.size();
    }
  }

  /** Whether {@code a} and {@code b} are the same JSON with object fields in the same order. */
  static boolean sameTree(JsonNode a, JsonNode b) {
    if (a == b) {
      return true;
    }
    if (a.getNodeType() != b.getNodeType() || a.size() != b.size()) {
      return false;
    }
    return switch (a.getNodeType()) {
      case OBJECT -> sameFields(a.properties().iterator(), b.properties().iterator());
      case ARRAY -> sameElements(a, b);
      // Scalars: Jackson's equals compares type and value (an int 1 differs from a long 1).
      case STRING, NUMBER, BOOLEAN, NULL, BINARY, POJO, MISSING -> a.equals(b);
    };
  }

  private static boolean sameFields(
      Iterator<Map.Entry<String, JsonNode>> as, Iterator<Map.Entry<String, JsonNode>> bs) {
    while (as.hasNext()) {
      Map.Entry<String, JsonNode> x = as.next();
      Map.Entry<String, JsonNode> y = bs.next();
      if (!x.getKey().equals(y.getKey()) || !sameTree(x.getValue(), y.getValue())) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameElements(JsonNode a, JsonNode b) {
    for (int i = 0; i < a.size(); i++) {
      if (!sameTree(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** A pool key: the tree, its hash computed once, and order-sensitive equality. */
  private static final class Key {
    private final JsonNode node;
    private final int hash;

    Key(JsonNode node) {
      this(node, node.hashCode());
    }

    Key(JsonNode node, int hash) {
      this.node = node;
      this.hash = hash;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && hash == k.hash && sameTree(node, k.node);
    }
  }
}
