package dev.flows.kernel.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.MathContext;

/**
 * What a model costs, in US dollars per million tokens read ({@code inputPerMTokens}) and written
 * ({@code outputPerMTokens}), as {@code flows.json} declares it under {@code models.<name>.price}.
 */
public record ModelPrice(BigDecimal inputPerMTokens, BigDecimal outputPerMTokens) {
  private static final BigDecimal MILLION = BigDecimal.valueOf(1_000_000);

  public ModelPrice {
    if (inputPerMTokens.signum() < 0 || outputPerMTokens.signum() < 0) {
      throw new IllegalArgumentException("a price is not negative");
    }
  }

  /** What {@code usage} costs at this price, in US dollars. */
  public BigDecimal cost(LlmUsage usage) {
    return inputPerMTokens
        .multiply(BigDecimal.valueOf(usage.inputTokens()))
        .add(outputPerMTokens.multiply(BigDecimal.valueOf(usage.outputTokens())))
        .divide(MILLION, MathContext.DECIMAL64);
  }

  public ObjectNode toJson() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("inputPerMTokens", inputPerMTokens).put("outputPerMTokens", outputPerMTokens);
    return o;
  }

  public static ModelPrice fromJson(JsonNode n) {
    return new ModelPrice(
        n.path("inputPerMTokens").decimalValue(), n.path("outputPerMTokens").decimalValue());
  }
}
