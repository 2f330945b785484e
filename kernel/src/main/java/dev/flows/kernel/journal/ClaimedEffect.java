package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;

/**
 * What {@link Admit.Electing} opened: the attempt (with its lease) and its election for the effect,
 * which the holder now owes.
 */
public record ClaimedEffect(ClaimedAttempt attempt, EffectElection election) {
  /**
   * The one step {@link Admit.Electing} may open for {@code r}, or its refusal ({@code
   * invalid_input}, {@code effect_not_declared}), checked before a journal writes anything.
   */
  public static StepSpec inlineStep(StartRun r, String surfacePath) {
    StepSpec only = ClaimedStart.onlyStep(r);
    if (!(only.body() instanceof StepBody.Agent a) || !a.declares(surfacePath)) {
      throw new FlowsException(
          ErrorCode.EFFECT_NOT_DECLARED,
          "surface " + surfacePath + " is not declared by step " + only.id(),
          r.admissionKey(),
          "declare it in the agent step's surfaces.external");
    }
    return only;
  }
}
