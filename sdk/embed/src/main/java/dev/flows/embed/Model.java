package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.runtime.PublicError;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A model declared in code ({@link FlowsBuilder#model(Model)}), as a flows.json {@code models}
 * entry declares it: a provider served through LangChain4j, the provider's model id, where to reach
 * it and the name of the secret holding its API key (read through {@link FlowsBuilder#secrets} when
 * the model is first called; never the key itself). Immutable: each option answers a new value.
 * Refusals are {@code config_invalid} at {@code model NAME}.
 */
public final class Model {
  /** A model's name, as a server's: letters, digits, {@code _} and {@code -}, at most 64. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");

  private final String name;
  private final ModelProvider provider;
  private final String model;
  private final Optional<URI> baseUrl;
  private final Optional<String> apiKeySecret;
  private final Duration timeout;

  private Model(
      String name,
      ModelProvider provider,
      String model,
      Optional<URI> baseUrl,
      Optional<String> apiKeySecret,
      Duration timeout) {
    this.name = name;
    this.provider = provider;
    this.model = model;
    this.baseUrl = baseUrl;
    this.apiKeySecret = apiKeySecret;
    this.timeout = timeout;
  }

  /**
   * {@code name} served by {@code provider} ({@code openai}, {@code anthropic}, {@code ollama},
   * {@code openai-compatible}: flows.json's names) as its model {@code model} (e.g. {@code
   * gpt-4o-mini}).
   */
  public static Model of(String name, String provider, String model) {
    if (!NAME.matcher(name).matches()) {
      throw refusal(
          name,
          "model name '" + name + "' is not allowed",
          "use letters, digits, _ and - (starting with a letter, at most 64)");
    }
    ModelProvider p =
        ModelProvider.fromWire(provider)
            .orElseThrow(
                () ->
                    refusal(
                        name,
                        "unknown model provider '" + provider + "'",
                        "use one of " + String.join(", ", ModelProvider.wires())));
    if (model.isBlank()) {
      throw refusal(name, "the provider's model is empty", "name it, e.g. gpt-4o-mini");
    }
    return new Model(
        name, p, model, Optional.empty(), Optional.empty(), ModelConfig.DEFAULT_TIMEOUT);
  }

  public String name() {
    return name;
  }

  /** Where the provider listens (required for {@code openai-compatible}): http or https. */
  public Model baseUrl(URI url) {
    if (!("http".equals(url.getScheme()) || "https".equals(url.getScheme()))
        || url.getHost() == null
        || url.getUserInfo() != null) {
      throw refusal(
          name,
          "base URL " + url + " is not an http(s) URL with a host and no credentials",
          "give e.g. https://api.example.com/v1, the key by apiKeySecret");
    }
    return new Model(name, provider, model, Optional.of(url), apiKeySecret, timeout);
  }

  /**
   * The name of the secret holding the API key (an environment variable, or what {@link
   * FlowsBuilder#secrets} looks up); without one the provider is called with no key.
   */
  public Model apiKeySecret(String secretName) {
    if (secretName.isBlank()) {
      throw refusal(name, "the API key's secret name is empty", "name the secret holding the key");
    }
    return new Model(name, provider, model, baseUrl, Optional.of(secretName), timeout);
  }

  /** How long one call may take (default 60 s). */
  public Model timeout(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw refusal(name, "timeout " + timeout + " is not positive", "give e.g. 30s");
    }
    return new Model(name, provider, model, baseUrl, apiKeySecret, timeout);
  }

  /** As the engine takes it; refused when an {@code openai-compatible} model has no base URL. */
  ModelConfig config() {
    if (provider == ModelProvider.OPENAI_COMPATIBLE && baseUrl.isEmpty()) {
      throw refusal(
          name,
          "an openai-compatible model has no base URL (it has no default address)",
          "give its baseUrl, e.g. http://host:port/v1");
    }
    return new ModelConfig(name, provider, model, baseUrl, apiKeySecret, timeout);
  }

  /** Names the secret, never its value. */
  @Override
  public String toString() {
    return "Model[" + name + ", " + provider.wire() + " " + model + "]";
  }

  private static FlowsError refusal(String name, String message, String fix) {
    return PublicError.of(
        new FlowsException(ErrorCode.CONFIG_INVALID, message, "model " + name, fix));
  }
}
