package dev.flows.sdk.runtime;

import dev.flows.kernel.FlowsException;
import java.util.List;

/**
 * Preflight found problems; nothing was journaled. Carries every problem found, not just the first,
 * so an author fixes them in one round. Its own code is the first problem's.
 */
public final class PreflightException extends FlowsException {
  private final List<FlowsException> problems;

  public PreflightException(List<FlowsException> problems) {
    super(
        problems.getFirst().code(),
        problems.size() == 1
            ? problems.getFirst().getMessage()
            : problems.size() + " problems; first: " + problems.getFirst().getMessage(),
        problems.getFirst().place().orElse(""),
        problems.getFirst().fix().orElse(""),
        problems.getFirst().retryable(),
        null);
    this.problems = List.copyOf(problems);
  }

  public List<FlowsException> problems() {
    return problems;
  }
}
