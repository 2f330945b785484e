package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.Routes;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.util.List;
import java.util.Optional;

/**
 * The rule of {@link Journal#upgradeRun}, one place for both journals: which step is the run's
 * body, when the move is refused, and what the body's spec and route become.
 */
public final class RunUpgrades {
  private RunUpgrades() {}

  /** A step of the run as the journal holds it, locked by the caller. */
  public record Step(StepSpec spec, StepStatus status, int attempts) {}

  /**
   * The move, once checked: the body step's new spec and route, and the entry to journal. Empty
   * when the body already has the instruction (a verb repeated after its commit changes nothing).
   */
  public record Move(String stepId, StepSpec spec, String route, JournalEntry.RunUpgraded entry) {}

  /** Checks the upgrade of run {@code runId} (status {@code status}, steps {@code steps}). */
  public static Optional<Move> plan(
      RunRef runId, RunStatus status, List<Step> steps, RunUpgrade upgrade, String by) {
    if (status == RunStatus.SUCCEEDED || status == RunStatus.CANCELED) {
      throw new RunTerminalException(
          "run " + runId + " is " + status.wire() + " and cannot move to another version",
          runId.value(),
          "only a run that has not ended (or failed, to resume it after) can be upgraded");
    }
    Step body = body(runId, steps);
    StepBody.Agent agent = (StepBody.Agent) body.spec().body();
    FlowBodyInstruction from = FlowBodyInstruction.of(agent);
    if (!from.flow().equals(upgrade.flow())) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "run " + runId + " is a run of flow " + from.flow() + ", not of " + upgrade.flow(),
          runId.value(),
          "upgrade it to a version of flow " + from.flow());
    }
    // The servers and tools frozen when the run started stay its own.
    FlowBodyInstruction to =
        FlowBodyInstruction.of(from.flow(), upgrade.version(), upgrade.origin(), from.inventory());
    StepBody.Agent moved =
        new StepBody.Agent(to.toJson(), agent.recoveryMode(), agent.externalSurfaces());
    if (moved.instruction().equals(agent.instruction())) {
      return Optional.empty();
    }
    fence(runId, body, upgrade);
    StepSpec s = body.spec();
    StepSpec spec =
        new StepSpec(
            s.id(),
            s.dependsOn(),
            s.input(),
            s.maxIterations(),
            s.retry(),
            s.leaseMs(),
            s.timeoutMs(),
            moved);
    String fromRoute = Routes.of(s);
    String toRoute = Routes.of(spec);
    return Optional.of(
        new Move(
            s.id(),
            spec,
            toRoute,
            new JournalEntry.RunUpgraded(
                runId, from.version(), fromRoute, to.version(), toRoute, by)));
  }

  /** The run's flow body: its agent step of instruction type {@code flow}. */
  private static Step body(RunRef runId, List<Step> steps) {
    return steps.stream()
        .filter(
            s ->
                s.spec().body() instanceof StepBody.Agent a
                    && a.instructionType().equals(FlowBodyInstruction.TYPE))
        .findFirst()
        .orElseThrow(
            () ->
                new FlowsException(
                    ErrorCode.INVALID_INPUT,
                    "run " + runId + " is not a flow run: it has no flow body to upgrade",
                    runId.value(),
                    "upgrade runs started from a flow"));
  }

  /** A body running, or one that made an attempt the check did not see, is not moved. */
  private static void fence(RunRef runId, Step body, RunUpgrade upgrade) {
    if (body.status() == StepStatus.RUNNING || body.attempts() != upgrade.checkedAttempts()) {
      throw new FlowsException(
          ErrorCode.LEASE_CONFLICT,
          "the body of run "
              + runId
              + (body.status() == StepStatus.RUNNING
                  ? " is running"
                  : " made an attempt since it was checked"),
          runId.value(),
          "check and upgrade the run again");
    }
  }
}
