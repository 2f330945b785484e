package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.llm.LlmReceipts;
import dev.flows.kernel.llm.ModelPrices;
import dev.flows.kernel.llm.SpendLimit;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;

/**
 * What a run's model calls used and may use, as {@code runs show} prints it: {@code usage} ({@code
 * inputTokens, outputTokens, modelCalls, costUsd?}: its own receipts, the cost at the prices frozen
 * into the run, present when the run has prices and every call's model has one), {@code budget}
 * (its header's, when set: {@code tokens?, turns?, costUsd?}) and, for a run with children, {@code
 * treeUsage} (the same sums over the run and every run below it).
 */
final class RunUsage {
  private RunUsage() {}

  /** The run's own usage, priced at the prices in its body's instruction {@code spec}. */
  static ObjectNode own(List<JournalRecord> entries, JsonNode spec) {
    List<JsonNode> receipts = LlmReceipts.of(entries);
    LlmReceipts.Total t = LlmReceipts.total(receipts);
    ObjectNode u =
        Session.JSON
            .createObjectNode()
            .put("inputTokens", t.inputTokens())
            .put("outputTokens", t.outputTokens())
            .put("modelCalls", t.calls());
    ModelPrices prices = body(spec).map(FlowBodyInstruction::prices).orElse(ModelPrices.none());
    if (!prices.byModel().isEmpty()) {
      prices.cost(receipts).ifPresent(c -> u.put("costUsd", c));
    }
    return u;
  }

  /** The budget the run's header set, when it set one. */
  static Optional<ObjectNode> budget(JsonNode spec) {
    return body(spec).flatMap(FlowBodyInstruction::budget).map(SpendLimit::toJson);
  }

  /**
   * {@code own} plus each child's {@code treeUsage} (or {@code usage}); the cost only when every
   * part has one.
   */
  static ObjectNode tree(JsonNode own, List<JsonNode> children) {
    ObjectNode sum = own.deepCopy();
    Optional<BigDecimal> cost = cost(own);
    for (JsonNode c : children) {
      JsonNode u = c.has("treeUsage") ? c.get("treeUsage") : c.path("usage");
      for (String f : List.of("inputTokens", "outputTokens", "modelCalls")) {
        sum.put(f, sum.path(f).asLong() + u.path(f).asLong());
      }
      Optional<BigDecimal> more =
          u.path("modelCalls").asLong() == 0 ? Optional.of(BigDecimal.ZERO) : cost(u);
      cost = cost.flatMap(x -> more.map(x::add));
    }
    sum.remove("costUsd");
    cost.ifPresent(c -> sum.put("costUsd", c));
    return sum;
  }

  private static Optional<BigDecimal> cost(JsonNode usage) {
    if (usage.has("costUsd")) {
      return Optional.of(usage.get("costUsd").decimalValue());
    }
    return usage.path("modelCalls").asLong() == 0 ? Optional.of(BigDecimal.ZERO) : Optional.empty();
  }

  /** {@code usage: 2 model calls, 70 tokens in, 12 out, $0.0012} (nothing without calls). */
  static Optional<String> text(String label, JsonNode usage) {
    if (usage.path("modelCalls").asInt() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        label
            + ": "
            + usage.path("modelCalls").asInt()
            + " model calls, "
            + usage.path("inputTokens").asLong()
            + " tokens in, "
            + usage.path("outputTokens").asLong()
            + " out"
            + (usage.has("costUsd")
                ? ", $" + usage.get("costUsd").decimalValue().toPlainString()
                : ""));
  }

  /** {@code budget: 5 model calls, 25 tokens, $0.03}. */
  static Optional<String> budgetText(JsonNode run) {
    return run.path("budget").isObject()
        ? Optional.of("budget: " + SpendLimit.fromJson(run.get("budget")).describe())
        : Optional.empty();
  }

  private static Optional<FlowBodyInstruction> body(JsonNode spec) {
    JsonNode i = spec.path("steps").path(0).path("agent").path("instruction");
    return FlowBodyInstruction.TYPE.equals(i.path("type").asText())
        ? Optional.of(FlowBodyInstruction.fromJson(i))
        : Optional.empty();
  }
}
