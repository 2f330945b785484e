package dev.flows.kernel.journal;

import dev.flows.kernel.instruction.FlowBodyInstruction;
import java.util.Objects;

/**
 * What {@link Journal#upgradeRun} moves a run to: flow {@code flow} (the run's own) at {@code
 * version}, its code from {@code origin}; fenced by {@code checkedAttempts}, the number of attempts
 * the run's body had made when the replay check that allowed the move read its journal (a body that
 * made another attempt since may have journaled calls the check did not see).
 */
public record RunUpgrade(
    String flow, String version, FlowBodyInstruction.Origin origin, int checkedAttempts) {
  public RunUpgrade {
    Objects.requireNonNull(flow, "flow");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(origin, "origin");
    if (checkedAttempts < 0) {
      throw new IllegalArgumentException("checkedAttempts must not be negative");
    }
  }
}
