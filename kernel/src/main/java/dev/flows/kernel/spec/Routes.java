package dev.flows.kernel.spec;

/**
 * A step's route: what a worker must be able to run to claim it. {@code deterministic} and {@code
 * llm} for those kinds; for an agent step its instruction {@code type}, followed by {@code
 * ":"+route} when the instruction names a narrower {@code route} (a flow class at a version, say).
 * Stored with the step so that claims filter on it without reading the spec.
 */
public final class Routes {
  private Routes() {}

  public static String of(StepSpec step) {
    return switch (step.body()) {
      case StepBody.Deterministic d -> StepKind.DETERMINISTIC.wire();
      case StepBody.Llm l -> StepKind.LLM.wire();
      case StepBody.Agent a -> {
        String narrower = a.instruction().path("route").asText("");
        yield narrower.isEmpty() ? a.instructionType() : agent(a.instructionType(), narrower);
      }
    };
  }

  /** The route of an agent step of instruction type {@code type} narrowed to {@code narrower}. */
  public static String agent(String type, String narrower) {
    return type + ":" + narrower;
  }
}
