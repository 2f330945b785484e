package dev.flows.sdk.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelPrice;
import dev.flows.kernel.llm.ModelProvider;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code models} map of a {@code flows.json}: {@code {"fast": {"provider": "openai", "model":
 * "gpt-4o-mini", "apiKeyEnv": "OPENAI_API_KEY", "baseUrl"?, "timeoutMs"?, "price"?:
 * {"inputPerMTokens": 0.15, "outputPerMTokens": 0.6}}}}. Refused {@code config_invalid} with a
 * pointer as the rest of the file is.
 */
final class ModelEntries {
  private static final Set<String> KEYS =
      Set.of("provider", "model", "baseUrl", "apiKeyEnv", "timeoutMs", "price");
  private static final Set<String> PRICE_KEYS = Set.of("inputPerMTokens", "outputPerMTokens");

  private ModelEntries() {}

  static Map<String, ModelConfig> parse(FlowsConfigLoader.Walker w, JsonNode models) {
    Map<String, ModelConfig> out = new LinkedHashMap<>();
    if (models.isMissingNode()) {
      return out;
    }
    w.object(models, "/models");
    for (Iterator<Map.Entry<String, JsonNode>> it = models.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String ptr = "/models/" + FlowsConfigLoader.Walker.escape(e.getKey());
      if (!FlowsConfigLoader.SERVER_NAME.matcher(e.getKey()).matches()) {
        throw w.refuse(
            ptr,
            "model name '" + e.getKey() + "' is not allowed",
            "use letters, digits, _ and - (starting with a letter, at most 64)");
      }
      out.put(e.getKey(), model(w, e.getKey(), e.getValue(), ptr));
    }
    return out;
  }

  private static ModelConfig model(
      FlowsConfigLoader.Walker w, String name, JsonNode n, String ptr) {
    w.object(n, ptr);
    w.onlyKeys(n, ptr, KEYS);
    String p = w.string(n, ptr, "provider");
    ModelProvider provider =
        ModelProvider.fromWire(p)
            .orElseThrow(
                () ->
                    w.refuse(
                        ptr + "/provider",
                        "unknown model provider '" + p + "'",
                        "use one of " + String.join(", ", ModelProvider.wires())));
    String model = w.string(n, ptr, "model");
    if (model.isBlank()) {
      throw w.refuse(ptr + "/model", "is empty", "name the provider's model, e.g. gpt-4o-mini");
    }
    Optional<URI> baseUrl =
        n.has("baseUrl")
            ? Optional.of(
                FlowsConfigLoader.httpUrl(w, w.string(n, ptr, "baseUrl"), ptr + "/baseUrl"))
            : Optional.empty();
    if (provider == ModelProvider.OPENAI_COMPATIBLE && baseUrl.isEmpty()) {
      throw w.refuse(
          ptr,
          "is missing \"baseUrl\" (an openai-compatible provider has no default address)",
          "add \"baseUrl\": \"http://host:port/v1\"");
    }
    Optional<String> apiKeyEnv =
        n.has("apiKeyEnv")
            ? Optional.of(FlowsConfigLoader.envName(w, n, ptr, "apiKeyEnv"))
            : Optional.empty();
    return new ModelConfig(
        name, provider, model, baseUrl, apiKeyEnv, timeout(w, n, ptr), price(w, n, ptr));
  }

  /** The model's price: both numbers, each a non-negative number of US dollars per 1M tokens. */
  private static Optional<ModelPrice> price(FlowsConfigLoader.Walker w, JsonNode n, String ptr) {
    if (!n.has("price")) {
      return Optional.empty();
    }
    JsonNode p = n.get("price");
    String at = ptr + "/price";
    w.object(p, at);
    w.onlyKeys(p, at, PRICE_KEYS);
    BigDecimal[] v = new BigDecimal[2];
    int i = 0;
    for (String k : List.of("inputPerMTokens", "outputPerMTokens")) {
      JsonNode x = p.get(k);
      if (x == null || !x.isNumber() || x.decimalValue().signum() < 0) {
        throw w.refuse(
            at + "/" + k,
            x == null ? "is missing" : "must be a number of US dollars, 0 or more",
            "write e.g. \"inputPerMTokens\": 0.15, \"outputPerMTokens\": 0.6 (per 1M tokens)");
      }
      v[i++] = x.decimalValue();
    }
    return Optional.of(new ModelPrice(v[0], v[1]));
  }

  private static Duration timeout(FlowsConfigLoader.Walker w, JsonNode n, String ptr) {
    if (!n.has("timeoutMs")) {
      return ModelConfig.DEFAULT_TIMEOUT;
    }
    JsonNode t = n.get("timeoutMs");
    if (!t.canConvertToLong() || !t.isIntegralNumber() || t.asLong() <= 0) {
      throw w.refuse(
          ptr + "/timeoutMs",
          "must be a positive whole number of milliseconds",
          "write e.g. 30000");
    }
    return Duration.ofMillis(t.asLong());
  }
}
