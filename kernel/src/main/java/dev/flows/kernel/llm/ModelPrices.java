package dev.flows.kernel.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The prices of the models a run may call, by declared name, frozen into the run when it is
 * admitted (so a changed {@code flows.json} does not change a running run's cost). The one place a
 * cost is computed: from the usage of {@code llm} receipts and these prices.
 */
public record ModelPrices(Map<String, ModelPrice> byModel) {
  public ModelPrices {
    byModel = Map.copyOf(new TreeMap<>(byModel));
  }

  public static ModelPrices none() {
    return new ModelPrices(Map.of());
  }

  public Optional<ModelPrice> of(String model) {
    return Optional.ofNullable(byModel.get(model));
  }

  /** What one model call cost, when its model has a price. */
  public Optional<BigDecimal> cost(String model, LlmUsage usage) {
    return of(model).map(p -> p.cost(usage));
  }

  /**
   * What {@code receipts} cost together; empty when one of them is of a model without a price (its
   * cost is not known, and an unknown part is not counted as free).
   */
  public Optional<BigDecimal> cost(List<JsonNode> receipts) {
    BigDecimal total = BigDecimal.ZERO;
    for (JsonNode r : receipts) {
      Optional<BigDecimal> c = cost(r.path("model").asText(), LlmReceipt.answer(r).usage());
      if (c.isEmpty()) {
        return Optional.empty();
      }
      total = total.add(c.get());
    }
    return Optional.of(total);
  }

  public ObjectNode toJson() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    byModel.forEach((m, p) -> o.set(m, p.toJson()));
    return o;
  }

  public static ModelPrices fromJson(JsonNode n) {
    Map<String, ModelPrice> out = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), ModelPrice.fromJson(e.getValue()));
    }
    return new ModelPrices(out);
  }
}
