package dev.flows.sdk;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What an agent may spend ({@link AgentCall#budget}): {@code Budget.tokens(50_000).turns(8)}, or
 * {@code Budget.unlimited().turns(8)}. Checked before every model turn against the usage the
 * agent's journaled turns report (input and output tokens together); past it the turn is not asked
 * and the agent fails {@code budget_exhausted} saying what it used.
 */
public record Budget(OptionalLong tokens, OptionalInt turns) {
  public Budget {
    tokens.ifPresent(
        n -> {
          if (n < 1) {
            throw new IllegalArgumentException("a token budget is positive, got " + n);
          }
        });
    turns.ifPresent(
        n -> {
          if (n < 1) {
            throw new IllegalArgumentException("a turn budget is positive, got " + n);
          }
        });
  }

  /** No limit (until one is added). */
  public static Budget unlimited() {
    return new Budget(OptionalLong.empty(), OptionalInt.empty());
  }

  /** At most {@code n} tokens (input and output) over all the agent's turns. */
  public static Budget tokens(long n) {
    return new Budget(OptionalLong.of(n), OptionalInt.empty());
  }

  /** This budget, with at most {@code n} model turns. */
  public Budget turns(int n) {
    return new Budget(tokens, OptionalInt.of(n));
  }
}
