package dev.flows.kernel.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.OptionalLong;

/**
 * One step of a run spec. {@code input} is a JSON value (JSON null when absent); {@code leaseMs}
 * and {@code timeoutMs} are empty when the worker's configured defaults apply.
 */
public record StepSpec(
    String id,
    List<String> dependsOn,
    JsonNode input,
    int maxIterations,
    BackoffPolicy retry,
    OptionalLong leaseMs,
    OptionalLong timeoutMs,
    StepBody body) {
  public static final int DEFAULT_MAX_ITERATIONS = 1;

  public StepSpec {
    dependsOn = List.copyOf(dependsOn);
    input = input.deepCopy();
  }

  public StepKind kind() {
    return body.kind();
  }
}
