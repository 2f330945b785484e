package dev.flows.kernel.llm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/** A tool a model may call: its name, what it does, and the JSON schema of its arguments. */
public record LlmToolSpec(String name, String description, JsonNode parameters) {
  public LlmToolSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(parameters, "parameters");
  }
}
