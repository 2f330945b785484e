package dev.flows.embed;

import dev.flows.sdk.RunId;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What {@link Flows#upgrade} did: per run, moved to the target's version, or refused and why.
 *
 * @param flow the flow's name
 * @param version the version the runs were moved to (the target's header version)
 * @param runs each run, in the order handled
 */
public record UpgradeReport(String flow, String version, List<Run> runs) {
  public UpgradeReport {
    runs = List.copyOf(runs);
  }

  /**
   * One run's outcome.
   *
   * @param runId the run
   * @param upgraded whether it is on the target version now (already there: nothing journaled)
   * @param code the refusal's code when refused ({@code replay_incompatible} when the target's code
   *     diverges from its journal; else the journal's refusal, e.g. {@code run_not_found}, {@code
   *     run_terminal}, {@code lease_conflict})
   * @param position where the target's code diverges (from 1), when that is the refusal
   * @param outcome {@code upgraded to version V} or {@code refused CODE: MESSAGE}
   */
  public record Run(
      RunId runId, boolean upgraded, Optional<String> code, OptionalInt position, String outcome) {}

  /** Whether every run was moved (none given: true). */
  public boolean allUpgraded() {
    return runs.stream().allMatch(Run::upgraded);
  }

  /** The runs left where they were. */
  public List<Run> refused() {
    return runs.stream().filter(r -> !r.upgraded()).toList();
  }

  /** {@code upgraded N, refused M}. */
  public String summary() {
    int refused = refused().size();
    return "upgraded %d, refused %d".formatted(runs.size() - refused, refused);
  }
}
