package dev.flows.kernel.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a scope (one model call, an agent, a run and its children) may spend: tokens (input and
 * output together), model calls ({@code turns}) and US dollars. JSON: {@code {"tokens"?, "turns"?,
 * "costUsd"?}}.
 */
public record SpendLimit(OptionalLong tokens, OptionalInt turns, Optional<BigDecimal> costUsd) {
  /** What a scope used so far. {@code costUsd} is empty when a call's model has no price. */
  public record Used(long tokens, int turns, Optional<BigDecimal> costUsd) {
    public static final Used NONE = new Used(0, 0, Optional.of(BigDecimal.ZERO));

    /** This usage and one more call's. */
    public Used plus(LlmUsage u, Optional<BigDecimal> cost) {
      return new Used(
          tokens + u.inputTokens() + u.outputTokens(),
          turns + 1,
          costUsd.flatMap(c -> cost.map(c::add)));
    }

    /** {@code 2 model calls, 30 tokens, $0.0012} (no cost when a call's model has no price). */
    public String describe() {
      return "%d model calls, %d tokens%s"
          .formatted(turns, tokens, costUsd.map(c -> ", $" + c.toPlainString()).orElse(""));
    }
  }

  public boolean isEmpty() {
    return tokens.isEmpty() && turns.isEmpty() && costUsd.isEmpty();
  }

  /**
   * Whether {@code used} leaves nothing for another call: a limit reached or passed. A cost limit
   * with a cost that is not known (a model without a price) is reached: it cannot be judged.
   */
  public boolean reachedBy(Used used) {
    boolean t = tokens.isPresent() && used.tokens() >= tokens.getAsLong();
    boolean n = turns.isPresent() && used.turns() >= turns.getAsInt();
    boolean c =
        costUsd.isPresent()
            && used.costUsd().map(u -> u.compareTo(costUsd.get()) >= 0).orElse(true);
    return t || n || c;
  }

  /** Whether {@code used} is past this limit (more than it allows). */
  public boolean passedBy(Used used) {
    boolean t = tokens.isPresent() && used.tokens() > tokens.getAsLong();
    boolean n = turns.isPresent() && used.turns() > turns.getAsInt();
    boolean c =
        costUsd.isPresent() && used.costUsd().map(u -> u.compareTo(costUsd.get()) > 0).orElse(true);
    return t || n || c;
  }

  /** {@code 5 model calls, 25 tokens, $0.01}: the limits it sets, in that order. */
  public String describe() {
    java.util.List<String> parts = new java.util.ArrayList<>();
    turns.ifPresent(t -> parts.add(t + " model calls"));
    tokens.ifPresent(t -> parts.add(t + " tokens"));
    costUsd.ifPresent(c -> parts.add("$" + c.toPlainString()));
    return parts.isEmpty() ? "no limit" : String.join(", ", parts);
  }

  public ObjectNode toJson() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    tokens.ifPresent(t -> o.put("tokens", t));
    turns.ifPresent(t -> o.put("turns", t));
    costUsd.ifPresent(c -> o.put("costUsd", c));
    return o;
  }

  public static SpendLimit fromJson(JsonNode n) {
    return new SpendLimit(
        n.has("tokens") ? OptionalLong.of(n.get("tokens").asLong()) : OptionalLong.empty(),
        n.has("turns") ? OptionalInt.of(n.get("turns").asInt()) : OptionalInt.empty(),
        n.has("costUsd") ? Optional.of(n.get("costUsd").decimalValue()) : Optional.empty());
  }
}
