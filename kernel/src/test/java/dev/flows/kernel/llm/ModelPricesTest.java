package dev.flows.kernel.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The one place a cost is computed, and the limits it is judged against. */
class ModelPricesTest {
  private static final ModelPort PORT =
      new ModelPort() {
        @Override
        public String provider() {
          return "openai";
        }

        @Override
        public String model() {
          return "gpt";
        }

        @Override
        public LlmAnswer chat(LlmRequest request) {
          throw new AssertionError("not asked");
        }
      };

  private static JsonNode receipt(String model, long in, long out) {
    return LlmReceipt.of(model, PORT, new LlmAnswer("x", new LlmUsage(in, out), "stop"), "k");
  }

  private final ModelPrices prices =
      new ModelPrices(
          Map.of("fast", new ModelPrice(new BigDecimal("0.15"), new BigDecimal("0.6"))));

  @Test
  void theCostOfReceiptsIsTheirUsageAtTheirModelsPrices() {
    assertThat(prices.cost(List.of(receipt("fast", 1_000_000, 0), receipt("fast", 0, 500_000))))
        .hasValueSatisfying(c -> assertThat(c).isEqualByComparingTo("0.45"));
  }

  @Test
  void aReceiptOfAModelWithoutAPriceMakesTheCostUnknownNotFree() {
    assertThat(prices.cost(List.of(receipt("fast", 10, 10), receipt("other", 10, 10)))).isEmpty();
  }

  @Test
  void pricesAndLimitsReadBackFromTheirJson() {
    assertThat(ModelPrices.fromJson(prices.toJson())).isEqualTo(prices);
    SpendLimit limit =
        new SpendLimit(
            OptionalLong.of(5), OptionalInt.empty(), Optional.of(new BigDecimal("0.25")));
    assertThat(SpendLimit.fromJson(limit.toJson())).isEqualTo(limit);
  }

  @Test
  void aLimitIsReachedAtItsValueAndPassedOnlyBeyondIt() {
    SpendLimit limit =
        new SpendLimit(OptionalLong.of(30), OptionalInt.empty(), Optional.of(BigDecimal.ONE));
    SpendLimit.Used at = new SpendLimit.Used(30, 2, Optional.of(BigDecimal.ZERO));
    assertThat(limit.reachedBy(at)).isTrue();
    assertThat(limit.passedBy(at)).isFalse();
    assertThat(limit.reachedBy(new SpendLimit.Used(29, 2, Optional.empty()))).isTrue();
    assertThat(limit.reachedBy(new SpendLimit.Used(29, 2, Optional.of(BigDecimal.ONE)))).isTrue();
    assertThat(limit.reachedBy(new SpendLimit.Used(29, 2, Optional.of(new BigDecimal("0.9")))))
        .isFalse();
  }
}
