package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.MemoVerb;
import java.time.Instant;
import java.time.InstantSource;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * {@code f.now()}, {@code f.randomUUID()}, {@code f.random()}: the value is made on first use and
 * journaled as a memo {@code {"verb","value"}} at the call's position; every replay answers it from
 * the journal.
 */
final class Deterministic {
  private final BodyMemos memos;
  private final InstantSource clock;
  private final IntSupplier nextPosition;

  Deterministic(BodyMemos memos, InstantSource clock, IntSupplier nextPosition) {
    this.memos = memos;
    this.clock = clock;
    this.nextPosition = nextPosition;
  }

  Instant now() {
    return Instant.parse(value(MemoVerb.NOW.wire(), () -> clock.instant().toString()).asText());
  }

  UUID randomUUID() {
    return UUID.fromString(
        value(MemoVerb.RANDOM_UUID.wire(), () -> UUID.randomUUID().toString()).asText());
  }

  double random() {
    return value(MemoVerb.RANDOM.wire(), () -> ThreadLocalRandom.current().nextDouble()).asDouble();
  }

  private JsonNode value(String verb, Supplier<Object> make) {
    int pos = nextPosition.getAsInt();
    return memos
        .of(pos, verb, verb + "()")
        .orElseGet(
            () -> {
              ObjectNode memo = BodyMemos.verb(verb);
              memo.set("value", DurableCtx.MAPPER.valueToTree(make.get()));
              return memos.keep(pos, memo);
            })
        .path("value");
  }
}
