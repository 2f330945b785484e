package dev.flows.sdk.runtime;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.RunUpgrade;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.sdk.Flow;
import java.util.Optional;

/**
 * Moves runs to a flow's given code ({@code flows runs upgrade}, {@code Flows.upgrade}): each run's
 * journal is replay-checked against that code first, and a run that diverges is refused {@code
 * replay_incompatible}, naming the position; a compatible one is moved by {@link
 * Journal#upgradeRun}, fenced by the number of attempts its body had made when it was checked.
 */
public final class RunUpgrader {
  private final Journal journal;
  private final ReplayChecker checker;

  public RunUpgrader(Journal journal, ReplayChecker checker) {
    this.journal = journal;
    this.checker = checker;
  }

  /** What happened to one run. */
  public sealed interface Outcome {
    RunRef run();

    /** The line a report shows for the run. */
    String describe();

    /** Moved to {@code version} (or already there: nothing journaled). */
    record Upgraded(RunRef run, String version) implements Outcome {
      @Override
      public String describe() {
        return "upgraded to version " + version;
      }
    }

    /** Left where it was: {@code divergence} when the replay check refused it. */
    record Refused(
        RunRef run, ErrorCode code, String message, Optional<ReplayVerdict.Diverges> divergence)
        implements Outcome {
      @Override
      public String describe() {
        return "refused " + code.wire() + ": " + message;
      }
    }
  }

  /** Moves {@code run} to {@code code} at its header's version, its code from {@code origin}. */
  public Outcome upgrade(
      RunRef run, Flow<?, ?> code, FlowBodyInstruction.Origin origin, String by) {
    try {
      RunSnapshot before =
          journal
              .run(run)
              .orElseThrow(
                  () ->
                      new FlowsException(
                          ErrorCode.RUN_NOT_FOUND,
                          "no run " + run.value(),
                          run.value(),
                          "`flows runs list --flow NAME` lists the flow's runs"));
      // A flow run's one step is its body.
      int attempts = before.steps().stream().findFirst().map(StepSnapshot::attempts).orElse(0);
      ReplayVerdict verdict = checker.check(run, code);
      if (verdict instanceof ReplayVerdict.Diverges d) {
        return new Outcome.Refused(
            run,
            ErrorCode.REPLAY_INCOMPATIBLE,
            "the version's code " + d.describe(),
            Optional.of(d));
      }
      String version = code.header().version();
      journal.upgradeRun(run, new RunUpgrade(code.header().name(), version, origin, attempts), by);
      return new Outcome.Upgraded(run, version);
    } catch (FlowsException e) {
      return new Outcome.Refused(run, e.code(), e.getMessage(), Optional.empty());
    }
  }
}
