package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.llm.LlmReceipt;
import dev.flows.kernel.llm.LlmReceipts;
import dev.flows.kernel.llm.ModelPrices;
import dev.flows.kernel.llm.SpendLimit;
import dev.flows.sdk.Budget;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The budgets a body's model calls are checked against: the run budgets of its run and of every run
 * above it (a parent's budget covers its children's calls), judged before each call against the
 * usage of the run tree's journaled {@code llm} receipts (every attempt's), priced at the prices
 * frozen into the run.
 */
final class Budgets {
  /** A run above (or at) the body's whose header set a budget. */
  private record Scope(RunRef run, SpendLimit limit, ModelPrices prices) {}

  private final Journal journal;
  private final ModelPrices prices;
  private final List<Scope> scopes;

  private Budgets(Journal journal, ModelPrices prices, List<Scope> scopes) {
    this.journal = journal;
    this.prices = prices;
    this.scopes = scopes;
  }

  /** The budgets over run {@code run}, whose body's instruction is {@code instruction}. */
  static Budgets of(Journal journal, RunRef run, JsonNode instruction, Optional<RunRef> parent) {
    FlowBodyInstruction body = FlowBodyInstruction.fromJson(instruction);
    List<Scope> scopes = new ArrayList<>();
    body.budget().ifPresent(b -> scopes.add(new Scope(run, b, body.prices())));
    Optional<RunRef> above = parent;
    while (above.isPresent()) {
      Optional<RunSnapshot> s = journal.run(above.get());
      if (s.isEmpty()) {
        break;
      }
      flowBody(s.get())
          .flatMap(b -> b.budget().map(l -> new Scope(s.get().runId(), l, b.prices())))
          .ifPresent(scopes::add);
      above = s.get().parentRunId();
    }
    return new Budgets(journal, body.prices(), List.copyOf(scopes));
  }

  /** The API's budget as the limit the engine judges. */
  static SpendLimit limit(Budget b) {
    return new SpendLimit(b.tokens(), b.turns(), b.costUsd());
  }

  ModelPrices prices() {
    return prices;
  }

  /**
   * What one answer adds to a scope's usage: its tokens, one call, its cost at the run's prices.
   */
  SpendLimit.Used plus(SpendLimit.Used used, String model, JsonNode receipt) {
    var usage = LlmReceipt.answer(receipt).usage();
    return used.plus(usage, prices.cost(model, usage));
  }

  /**
   * Refuses a call of {@code model} under a cost limit when the model has no price: its cost could
   * not be judged.
   */
  static void requirePrice(SpendLimit limit, ModelPrices prices, String model, String described) {
    if (limit.costUsd().isPresent() && prices.of(model).isEmpty()) {
      throw new FlowsException(
          ErrorCode.CONFIG_INVALID,
          "a cost budget applies, and model '" + model + "' has no price in this run",
          described,
          "add \"price\": {\"inputPerMTokens\": N, \"outputPerMTokens\": N} to models."
              + model
              + " in flows.json (frozen into runs started after), or budget tokens instead");
    }
  }

  /** Refuses the next call of {@code model} when a run budget over this body is used up. */
  void checkRuns(String model, String described) {
    for (Scope s : scopes) {
      requirePrice(s.limit(), s.prices(), model, described);
      SpendLimit.Used used = used(s);
      if (s.limit().reachedBy(used)) {
        throw exhausted(
            "run " + s.run().value() + " (with its children)", used, s.limit(), described);
      }
    }
  }

  static FlowsException exhausted(
      String who, SpendLimit.Used used, SpendLimit limit, String described) {
    return new FlowsException(
        ErrorCode.BUDGET_EXHAUSTED,
        who + " used " + used.describe() + " of its budget (" + limit.describe() + ")",
        described,
        "raise the budget, or narrow the prompts, the instructions or the tools");
  }

  /** The usage of a scope's run and every run below it, its receipts priced at its prices. */
  private SpendLimit.Used used(Scope s) {
    List<JsonNode> receipts = new ArrayList<>();
    collect(s.run(), receipts);
    SpendLimit.Used used = SpendLimit.Used.NONE;
    for (JsonNode r : receipts) {
      var usage = LlmReceipt.answer(r).usage();
      used = used.plus(usage, s.prices().cost(r.path("model").asText(), usage));
    }
    return used;
  }

  private void collect(RunRef run, List<JsonNode> into) {
    into.addAll(LlmReceipts.of(journal.entries(run)));
    for (RunRef child : journal.children(run)) {
      collect(child, into);
    }
  }

  private static Optional<FlowBodyInstruction> flowBody(RunSnapshot s) {
    JsonNode i = s.spec().path("steps").path(0).path("agent").path("instruction");
    return FlowBodyInstruction.TYPE.equals(i.path("type").asText())
        ? Optional.of(FlowBodyInstruction.fromJson(i))
        : Optional.empty();
  }
}
