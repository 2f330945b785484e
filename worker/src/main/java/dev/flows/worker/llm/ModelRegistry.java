package dev.flows.worker.llm;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelPort;
import dev.flows.kernel.llm.ModelPrice;
import dev.flows.kernel.llm.ModelPrices;
import dev.flows.kernel.llm.Models;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The models one worker can call: those a service gave in code and those flows.json declares
 * (served through LangChain4j, built when first declared). A name is given once: a second, other
 * declaration of it is refused {@code config_invalid}.
 */
public final class ModelRegistry {
  private final Function<String, Optional<String>> env;
  private final Map<String, ModelPort> ports = new HashMap<>();
  private final Map<String, ModelConfig> declared = new HashMap<>();
  private volatile Models models = Models.none();

  public ModelRegistry(Function<String, Optional<String>> env) {
    this.env = env;
  }

  /** A model given in code under {@code name}. */
  public synchronized ModelRegistry register(String name, ModelPort port) {
    if (ports.containsKey(name)) {
      throw clash(name);
    }
    ports.put(name, port);
    models = new Models(ports);
    return this;
  }

  /**
   * A model flows.json declares; the same declaration again is a no-op, and a model given in code
   * under the name keeps it (the service chose it).
   */
  public synchronized ModelRegistry declare(ModelConfig config) {
    ModelConfig before = declared.get(config.name());
    if (before != null && !before.equals(config)) {
      throw clash(config.name());
    }
    if (before == null && !ports.containsKey(config.name())) {
      declared.put(config.name(), config);
      ports.put(config.name(), LangChainModel.of(config, env));
      models = new Models(ports);
    }
    return this;
  }

  public Models models() {
    return models;
  }

  /**
   * The prices flows.json declares for the models this worker calls by those declarations (a model
   * given in code has none), to freeze into a run when it is admitted.
   */
  public synchronized ModelPrices prices() {
    Map<String, ModelPrice> out = new HashMap<>();
    declared.forEach((name, c) -> c.price().ifPresent(p -> out.put(name, p)));
    return new ModelPrices(out);
  }

  private static FlowsException clash(String name) {
    return new FlowsException(
        ErrorCode.CONFIG_INVALID,
        "model " + name + " is declared twice, differently",
        "model " + name,
        "declare it in one place");
  }
}
