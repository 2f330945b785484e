package dev.flows.kernel.llm;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A model a {@code flows.json} declares under {@code models.<name>}: its provider, the provider's
 * model id, where to reach it, the environment variable holding its API key (never the key) and how
 * long one call may take, and what it costs ({@code price}, when declared).
 */
public record ModelConfig(
    String name,
    ModelProvider provider,
    String model,
    Optional<URI> baseUrl,
    Optional<String> apiKeyEnv,
    Duration timeout,
    Optional<ModelPrice> price) {
  /** How long one model call may take when the declaration names no {@code timeoutMs}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

  /** Where a local Ollama listens when no {@code baseUrl} is given. */
  public static final URI OLLAMA_DEFAULT_URL = URI.create("http://localhost:11434");

  public ModelConfig {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(model, "model");
    if (provider == ModelProvider.OPENAI_COMPATIBLE && baseUrl.isEmpty()) {
      throw new IllegalArgumentException("an openai-compatible model needs a baseUrl");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("a model's timeout must be positive: " + timeout);
    }
    Objects.requireNonNull(price, "price");
  }

  /** A model declared without a price. */
  public ModelConfig(
      String name,
      ModelProvider provider,
      String model,
      Optional<URI> baseUrl,
      Optional<String> apiKeyEnv,
      Duration timeout) {
    this(name, provider, model, baseUrl, apiKeyEnv, timeout, Optional.empty());
  }
}
