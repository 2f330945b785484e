package dev.flows.embed;

import dev.flows.sdk.RunId;
import java.util.List;
import java.util.OptionalInt;

/**
 * What {@link Flows#replayCheck} found: per run whether the code given makes the calls its journal
 * holds, and where it does not.
 *
 * @param flow the flow's name
 * @param runs each run checked, in the order checked
 */
public record ReplayReport(String flow, List<Run> runs) {
  public ReplayReport {
    runs = List.copyOf(runs);
  }

  /**
   * One run's verdict.
   *
   * @param runId the run
   * @param compatible whether the code replays its journal
   * @param position where it diverges (the call's position in the body, from 1), when it does
   * @param verdict {@code compatible} or {@code diverges at position N: journal has X, code makes
   *     Y}
   */
  public record Run(RunId runId, boolean compatible, OptionalInt position, String verdict) {}

  /** Whether every run checked is compatible (none checked: true). */
  public boolean compatible() {
    return runs.stream().allMatch(Run::compatible);
  }

  /** The runs that diverge. */
  public List<Run> diverging() {
    return runs.stream().filter(r -> !r.compatible()).toList();
  }

  /** {@code N runs of flow F: C compatible, D diverge}. */
  public String summary() {
    int diverge = diverging().size();
    return "%d run%s of flow %s: %d compatible, %d diverge%s"
        .formatted(
            runs.size(),
            runs.size() == 1 ? "" : "s",
            flow,
            runs.size() - diverge,
            diverge,
            diverge == 1 ? "s" : "");
  }
}
