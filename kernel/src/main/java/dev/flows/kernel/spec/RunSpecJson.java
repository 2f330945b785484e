package dev.flows.kernel.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.keys.Keys;

/**
 * The canonical JSON form of a run spec: every field written, defaults included, keys in a fixed
 * order. Its hash identifies a spec for admission (same key + same hash = same run), so two specs
 * that mean the same thing hash the same whether or not their author spelled out the defaults.
 */
public final class RunSpecJson {
  /** Shared mapper: sorted keys so the text of a canonical node is stable. */
  public static final ObjectMapper MAPPER =
      Jackson.builder().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

  private RunSpecJson() {}

  public static ObjectNode write(RunSpec spec) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("version", spec.version());
    if (!spec.name().isEmpty()) {
      root.put("name", spec.name());
    }
    ArrayNode steps = root.putArray("steps");
    for (StepSpec s : spec.steps()) {
      steps.add(writeStep(s));
    }
    return root;
  }

  public static ObjectNode writeStep(StepSpec s) {
    ObjectNode n = MAPPER.createObjectNode();
    n.put("id", s.id());
    ArrayNode deps = n.putArray("dependsOn");
    s.dependsOn().forEach(deps::add);
    n.set("input", s.input());
    n.put("maxIterations", s.maxIterations());
    ObjectNode retry = n.putObject("retry");
    retry.put("initialBackoffMs", s.retry().initialBackoffMs());
    retry.put("maxBackoffMs", s.retry().maxBackoffMs());
    retry.put("multiplier", s.retry().multiplier());
    retry.put("jitterPercent", s.retry().jitterPercent());
    s.leaseMs().ifPresent(v -> n.put("leaseMs", v));
    s.timeoutMs().ifPresent(v -> n.put("timeoutMs", v));
    switch (s.body()) {
      case StepBody.Deterministic d -> {
        ObjectNode k = n.putObject("deterministic");
        if (d.shell()) {
          k.put("command", d.argv().getFirst());
        } else {
          ArrayNode argv = k.putArray("command");
          d.argv().forEach(argv::add);
        }
        d.cwd().ifPresent(c -> k.put("cwd", c));
      }
      case StepBody.Llm l -> {
        ObjectNode k = n.putObject("llm");
        k.put("prompt", l.prompt());
        if (!l.model().isEmpty()) {
          k.put("model", l.model());
        }
      }
      case StepBody.Agent a -> {
        ObjectNode k = n.putObject("agent");
        k.set("instruction", a.instruction());
        k.put("recoveryMode", a.recoveryMode().wire());
        ArrayNode ext = k.putObject("surfaces").putArray("external");
        a.externalSurfaces().forEach(ext::add);
      }
    }
    return n;
  }

  /** Canonical text: sorted keys, no whitespace. */
  public static String canonicalText(JsonNode node) {
    try {
      Object tree = MAPPER.treeToValue(node, Object.class);
      return MAPPER.writeValueAsString(tree);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }

  /** {@code hex(sha256(canonical text))}. */
  public static String hash(RunSpec spec) {
    return Keys.sha256Hex(canonicalText(write(spec)));
  }
}
