package dev.flows.kernel.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.core.util.RecyclerPool;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * Where every Jackson mapper of flows comes from. Jackson's default buffer pool keeps a recycler (a
 * few char and byte buffers, ~25 KiB, softly reachable) per thread that ever wrote JSON; a worker
 * runs each attempt and each inline MCP call on its own virtual thread, so with 10,000 waiting runs
 * that default pins hundreds of MiB the GC clears only under memory pressure. One pool shared by
 * all mappers keeps as many recyclers as JSON is being written at once.
 */
public final class Jackson {
  /** Shared by every mapper built here: recyclers are handed between threads, not kept by one. */
  public static final RecyclerPool<BufferRecycler> POOL =
      JsonRecyclerPools.sharedConcurrentDequePool();

  private Jackson() {}

  /** A JSON factory on the shared pool. */
  public static JsonFactory factory() {
    return JsonFactory.builder().recyclerPool(POOL).build();
  }

  /** A plain mapper on the shared pool (what {@code new ObjectMapper()} would give otherwise). */
  public static ObjectMapper mapper() {
    return new ObjectMapper(factory());
  }

  /** A mapper builder on the shared pool, for mappers with features of their own. */
  public static JsonMapper.Builder builder() {
    return JsonMapper.builder(factory());
  }
}
