package dev.flows.kernel.llm;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** Who serves a declared model: the closed set of providers a {@code flows.json} may name. */
public enum ModelProvider {
  OPENAI("openai"),
  ANTHROPIC("anthropic"),
  /** A local Ollama, through its OpenAI-compatible endpoint ({@code <baseUrl>/v1}). */
  OLLAMA("ollama"),
  /** Any server speaking OpenAI's chat completions API at {@code baseUrl} (required). */
  OPENAI_COMPATIBLE("openai-compatible");

  private final String wire;

  ModelProvider(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static Optional<ModelProvider> fromWire(String wire) {
    return Arrays.stream(values()).filter(p -> p.wire.equals(wire)).findFirst();
  }

  public static List<String> wires() {
    return Arrays.stream(values()).map(ModelProvider::wire).toList();
  }
}
