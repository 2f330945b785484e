package dev.flows.kernel.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class JsonInternerTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private static ObjectNode tree(String value) {
    ObjectNode n = F.objectNode().put("a", value);
    n.putArray("list").add(1).add("two").addNull();
    n.putObject("nested").put("b", true);
    return n;
  }

  @Test
  void equalTreesGetOneInstanceThatIsACopyOfTheFirst() {
    JsonInterner pool = new JsonInterner(8);
    ObjectNode first = tree("x");
    JsonNode canonical = pool.intern(first);

    assertThat(canonical).isNotSameAs(first).isEqualTo(first);
    assertThat(pool.intern(tree("x"))).isSameAs(canonical);
    first.put("a", "edited");
    assertThat(canonical).isEqualTo(tree("x"));
  }

  @Test
  void treesThatDifferOnlyInFieldOrderOrNumberTypeAreNotShared() {
    JsonInterner pool = new JsonInterner(8);
    ObjectNode ab = F.objectNode().put("a", 1).put("b", 2);
    ObjectNode ba = F.objectNode().put("b", 2).put("a", 1);
    ObjectNode longs = F.objectNode().put("a", 1L).put("b", 2L);

    JsonNode x = pool.intern(ab);
    JsonNode y = pool.intern(ba);
    JsonNode z = pool.intern(longs);

    assertThat(y).isNotSameAs(x);
    assertThat(y.toString()).isEqualTo("{\"b\":2,\"a\":1}");
    assertThat(z).isNotSameAs(x);
    assertThat(z.get("a").isLong()).isTrue();
  }

  @Test
  void thePoolKeepsAtMostItsLimitEvictingTheLeastRecentlyUsed() {
    JsonInterner pool = new JsonInterner(2);
    JsonNode a = pool.intern(tree("a"));
    JsonNode b = pool.intern(tree("b"));
    assertThat(pool.intern(tree("a"))).isSameAs(a);
    pool.intern(tree("c"));

    assertThat(pool.size()).isEqualTo(2);
    assertThat(pool.intern(tree("a"))).as("recently used: kept").isSameAs(a);
    JsonNode again = pool.intern(tree("b"));
    assertThat(again).as("evicted: a new canonical copy").isNotSameAs(b).isEqualTo(tree("b"));
    assertThat(b).as("an evicted tree stays valid where it is held").isEqualTo(tree("b"));
    assertThat(pool.size()).isEqualTo(2);
  }

  @Test
  void aLimitBelowOneIsRefused() {
    assertThatThrownBy(() -> new JsonInterner(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void threadsInterningEqualTreesAtOnceAllGetTheSameInstance() throws Exception {
    JsonInterner pool = new JsonInterner(4);
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<JsonNode>> got = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        got.add(threads.submit(() -> pool.intern(tree("same"))));
      }
      Set<JsonNode> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
      for (Future<JsonNode> f : got) {
        distinct.add(f.get());
      }
      assertThat(distinct).hasSize(1);
      assertThat(distinct.iterator().next()).isEqualTo(tree("same"));
    } finally {
      threads.shutdownNow();
    }
  }
}
