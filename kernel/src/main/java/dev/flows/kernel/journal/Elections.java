package dev.flows.kernel.journal;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;

/**
 * How an attempt's {@code recordEffect} is answered, for both journals: an effect is recorded only
 * on a surface its agent step declares, and the election it finds (if any) decides what happens.
 */
public final class Elections {
  private Elections() {}

  /** What {@code recordEffect} does with the election it finds. */
  public enum Decision {
    /** No election yet: this attempt is elected, and {@code effect.recorded} journaled. */
    ELECT,
    /** The effect was performed and confirmed: the caller gets its output, nothing is written. */
    PERFORMED,
    /** This attempt holds the election already: nothing is written. */
    HELD,
    /** An earlier attempt's open election passes to this one, journaled as taken over. */
    TAKE_OVER
  }

  /**
   * Refuses {@code effect_not_declared} unless {@code step} is an agent declaring the surface, or
   * an llm step recording its model call ({@link StepBody.Llm#SURFACE}).
   */
  public static void requireDeclared(StepSpec step, LeaseToken lease, String surfacePath) {
    boolean declared =
        switch (step.body()) {
          case StepBody.Agent agent -> agent.declares(surfacePath);
          case StepBody.Llm llm -> surfacePath.equals(StepBody.Llm.SURFACE);
          case StepBody.Deterministic d -> false;
        };
    if (!declared) {
      throw new FlowsException(
          ErrorCode.EFFECT_NOT_DECLARED,
          "surface " + surfacePath + " is not declared by step " + lease.stepId(),
          lease.place(),
          "declare it in the agent step's surfaces.external");
    }
  }

  /**
   * The decision for attempt {@code attempt} given the election found: held by {@code
   * electedAttempt}, {@code confirmed} or open. With no election found it is {@link
   * Decision#ELECT}.
   */
  public static Decision decide(int electedAttempt, boolean confirmed, int attempt) {
    if (confirmed) {
      return Decision.PERFORMED;
    }
    return electedAttempt == attempt ? Decision.HELD : Decision.TAKE_OVER;
  }
}
