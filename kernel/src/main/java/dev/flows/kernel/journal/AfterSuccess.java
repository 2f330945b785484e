package dev.flows.kernel.journal;

import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a step's success (or an operator's "performed" resolution) readies: every waiting step of
 * the run whose dependencies have all succeeded becomes ready, and a running run whose steps have
 * all succeeded ends succeeded. The in-memory journal calls {@link #of}; the Postgres journal
 * decides the same in {@code flows.after_success} (R__journal_functions.sql), one statement in the
 * transaction that wrote the success.
 *
 * @param readied the waiting steps that become ready, in the run's step order
 * @param runSucceeds whether the run ends succeeded
 */
public record AfterSuccess(List<String> readied, boolean runSucceeds) {

  /** A step as this rule reads it. */
  public record Step(String id, StepStatus status, List<String> dependsOn) {}

  /** The rule over the run's steps (in step order) after the success was written. */
  public static AfterSuccess of(RunStatus run, Collection<Step> steps) {
    Map<String, StepStatus> status = new HashMap<>();
    steps.forEach(s -> status.put(s.id(), s.status()));
    List<String> readied = new ArrayList<>();
    for (Step s : steps) {
      if (s.status() == StepStatus.WAITING
          && s.dependsOn().stream().allMatch(d -> status.get(d) == StepStatus.SUCCEEDED)) {
        readied.add(s.id());
      }
    }
    boolean allSucceeded =
        readied.isEmpty() && steps.stream().allMatch(s -> s.status() == StepStatus.SUCCEEDED);
    return new AfterSuccess(List.copyOf(readied), allSucceeded && run == RunStatus.RUNNING);
  }
}
