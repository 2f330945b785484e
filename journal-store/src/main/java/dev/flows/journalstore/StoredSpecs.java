package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.RunSpecParser;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads back the canonical spec JSON the journal stored ({@code RunSpecJson.write}). A single step
 * cannot go through {@code RunSpecParser} (its dependencies name steps outside it), so steps are
 * read here; the stored form was validated when the run was admitted, so this reader trusts its
 * shape, and a malformed row is a corrupted database and fails loudly.
 */
final class StoredSpecs {
  private StoredSpecs() {}

  /** A whole stored run spec goes through the kernel's parser, which reads back what it wrote. */
  static RunSpec readRun(JsonNode n) {
    return RunSpecParser.parse(n);
  }

  static StepSpec readStep(JsonNode n) {
    JsonNode r = n.get("retry");
    BackoffPolicy retry =
        new BackoffPolicy(
            r.get("initialBackoffMs").asLong(),
            r.get("maxBackoffMs").asLong(),
            r.get("multiplier").asDouble(),
            r.get("jitterPercent").asInt());
    return new StepSpec(
        n.get("id").asText(),
        strings(n.get("dependsOn")),
        n.has("input") ? n.get("input") : NullNode.getInstance(),
        n.get("maxIterations").asInt(),
        retry,
        optionalLong(n, "leaseMs"),
        optionalLong(n, "timeoutMs"),
        body(n));
  }

  private static StepBody body(JsonNode n) {
    if (n.has("deterministic")) {
      JsonNode command = n.get("deterministic").get("command");
      JsonNode cwd = n.get("deterministic").get("cwd");
      Optional<String> dir = cwd == null ? Optional.empty() : Optional.of(cwd.asText());
      return command.isTextual()
          ? new StepBody.Deterministic(List.of(command.asText()), true, dir)
          : new StepBody.Deterministic(strings(command), false, dir);
    }
    if (n.has("llm")) {
      JsonNode l = n.get("llm");
      return new StepBody.Llm(l.get("prompt").asText(), l.path("model").asText(""));
    }
    JsonNode a = n.get("agent");
    if (a == null) {
      throw new IllegalStateException("stored step " + n.path("id").asText() + " has no kind");
    }
    return new StepBody.Agent(
        a.get("instruction"),
        RecoveryMode.fromWire(a.get("recoveryMode").asText())
            .orElseThrow(() -> new IllegalStateException("stored recovery mode unknown")),
        strings(a.path("surfaces").path("external")));
  }

  private static OptionalLong optionalLong(JsonNode n, String field) {
    return n.hasNonNull(field) ? OptionalLong.of(n.get(field).asLong()) : OptionalLong.empty();
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(e -> out.add(e.asText()));
    return out;
  }
}
