package dev.flows.sdk;

import java.math.BigDecimal;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a model call, an agent or a run may spend: {@code Budget.tokens(50_000).turns(8)
 * .costUsd(0.25)}, or {@code Budget.unlimited().turns(8)}. Tokens are input and output together,
 * turns are model calls, and the cost is the usage priced at the models' {@code flows.json} prices
 * frozen into the run. Given to {@link LlmCall#budget} (one call), {@link AgentCall#budget} (an
 * agent's turns) and {@link FlowHeader.Builder#budget} (the run and every child it starts). Checked
 * before every model call against the usage its scope's journaled receipts report; past it the call
 * is not made and fails {@code budget_exhausted} saying what was used and the limit.
 */
public record Budget(OptionalLong tokens, OptionalInt turns, Optional<BigDecimal> costUsd) {
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
    costUsd.ifPresent(
        c -> {
          if (c.signum() <= 0) {
            throw new IllegalArgumentException("a cost budget is positive, got " + c);
          }
        });
  }

  /** A budget of tokens and turns, without a cost limit. */
  public Budget(OptionalLong tokens, OptionalInt turns) {
    this(tokens, turns, Optional.empty());
  }

  /** No limit (until one is added). */
  public static Budget unlimited() {
    return new Budget(OptionalLong.empty(), OptionalInt.empty());
  }

  /** At most {@code n} tokens (input and output) over all the scope's model calls. */
  public static Budget tokens(long n) {
    return new Budget(OptionalLong.of(n), OptionalInt.empty());
  }

  /** This budget, with at most {@code n} model calls (turns). */
  public Budget turns(int n) {
    return new Budget(tokens, OptionalInt.of(n), costUsd);
  }

  /**
   * This budget, with at most {@code usd} US dollars (the usage priced at the models' {@code
   * flows.json} {@code price}; a call of a model without a price cannot be judged and is refused).
   */
  public Budget costUsd(double usd) {
    return new Budget(tokens, turns, Optional.of(BigDecimal.valueOf(usd)));
  }
}
