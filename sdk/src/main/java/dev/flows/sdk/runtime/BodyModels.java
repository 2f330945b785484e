package dev.flows.sdk.runtime;

import dev.flows.worker.llm.LlmCalls;
import dev.flows.worker.llm.ModelRegistry;

/** The models a body's {@code f.llm} calls reach, and how a call is made (rate-limit waits). */
public record BodyModels(ModelRegistry registry, LlmCalls calls) {
  /** No model: every {@code f.llm} fails {@code llm_undeclared_model}. */
  public static BodyModels none() {
    return new BodyModels(
        new ModelRegistry(name -> java.util.Optional.empty()), LlmCalls.standard());
  }
}
