package dev.flows.kernel.llm;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The models a worker can call, by declared name. An {@code llm} step naming no model gets {@link
 * #DEFAULT} when one is declared under that name, else the only model when there is exactly one.
 */
public record Models(Map<String, ModelPort> byName) {
  /** The name of the model a step without {@code model} uses when several are declared. */
  public static final String DEFAULT = "default";

  public Models {
    byName = Map.copyOf(new TreeMap<>(byName));
  }

  public static Models none() {
    return new Models(Map.of());
  }

  public boolean isEmpty() {
    return byName.isEmpty();
  }

  /** The declared name {@code requested} resolves to (the default for an empty one), if any. */
  public Optional<String> resolve(String requested) {
    if (!requested.isEmpty()) {
      return byName.containsKey(requested) ? Optional.of(requested) : Optional.empty();
    }
    if (byName.containsKey(DEFAULT)) {
      return Optional.of(DEFAULT);
    }
    return byName.size() == 1 ? Optional.of(byName.keySet().iterator().next()) : Optional.empty();
  }

  /** The model {@code requested} names; refused {@code llm_undeclared_model} when none. */
  public Map.Entry<String, ModelPort> require(String requested, String place) {
    String name =
        resolve(requested)
            .orElseThrow(
                () ->
                    new FlowsException(
                        ErrorCode.LLM_UNDECLARED_MODEL,
                        (requested.isEmpty() ? "no default model" : "model '" + requested + "'")
                            + " is not declared (declared: "
                            + (byName.isEmpty() ? "none" : String.join(", ", byName.keySet()))
                            + ")",
                        place,
                        "declare it under \"models\" in flows.json, or pass it to"
                            + " Flows.builder().model(name, model)"));
    return Map.entry(name, byName.get(name));
  }
}
