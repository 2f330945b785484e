package dev.flows.kernel.spec;

import static dev.flows.kernel.spec.SpecChecks.at;
import static dev.flows.kernel.spec.SpecChecks.distinctStrings;
import static dev.flows.kernel.spec.SpecChecks.fieldNames;
import static dev.flows.kernel.spec.SpecChecks.freeJson;
import static dev.flows.kernel.spec.SpecChecks.intWithin;
import static dev.flows.kernel.spec.SpecChecks.longAtLeast;
import static dev.flows.kernel.spec.SpecChecks.nonBlank;
import static dev.flows.kernel.spec.SpecChecks.object;
import static dev.flows.kernel.spec.SpecChecks.onlyFields;
import static dev.flows.kernel.spec.SpecChecks.optional;
import static dev.flows.kernel.spec.SpecChecks.required;
import static dev.flows.kernel.spec.SpecChecks.shown;
import static dev.flows.kernel.spec.SpecChecks.string;
import static dev.flows.kernel.spec.SpecChecks.wires;
import static dev.flows.kernel.spec.SpecChecks.wrongType;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.InvalidSpecException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * The fail-closed reader of run specs (format in SURFACE.md, "Run spec"). Anything it does not
 * understand is refused with an {@link InvalidSpecException} whose pointer names the offending
 * place, rather than ignored: a misspelt {@code retry} silently meaning "no retry policy" is the
 * kind of surprise a durable engine must not have. It accepts exactly what {@link RunSpecJson}
 * writes, so {@code parse(write(spec))} equals {@code spec}.
 *
 * <p>JSON {@code null} is never taken for an absent field: an optional field is either left out or
 * holds a value of its type. Pure: no I/O, and a refusal leaves nothing behind.
 */
public final class RunSpecParser {
  /** Longest step id; ids end up in keys, logs and views, so they stay short and plain. */
  public static final int MAX_STEP_ID_LENGTH = 100;

  private static final Pattern STEP_ID =
      Pattern.compile("[A-Za-z0-9_.\\-]{1," + MAX_STEP_ID_LENGTH + "}");
  private static final int MAX_JITTER_PERCENT = 100;

  // Duplicate keys would otherwise resolve silently to the last one, and trailing text after the
  // document would be ignored: both hide mistakes.
  private static final ObjectReader READER =
      RunSpecJson.MAPPER
          .reader()
          .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static final List<String> ROOT_FIELDS = List.of("version", "name", "steps");
  private static final List<String> STEP_FIELDS =
      List.of(
          "id",
          "dependsOn",
          "input",
          "maxIterations",
          "retry",
          "leaseMs",
          "timeoutMs",
          StepKind.DETERMINISTIC.wire(),
          StepKind.LLM.wire(),
          StepKind.AGENT.wire());
  private static final List<String> RETRY_FIELDS =
      List.of("initialBackoffMs", "maxBackoffMs", "multiplier", "jitterPercent");
  private static final List<String> DETERMINISTIC_FIELDS = List.of("command", "cwd");
  private static final List<String> LLM_FIELDS = List.of("prompt", "model");
  private static final List<String> AGENT_FIELDS =
      List.of("instruction", "recoveryMode", "surfaces");
  private static final List<String> SURFACES_FIELDS = List.of("external");

  private RunSpecParser() {}

  /** Parses JSON text. Malformed JSON is refused with the root pointer {@code ""}. */
  public static RunSpec parse(String json) {
    Objects.requireNonNull(json, "json");
    JsonNode root;
    try {
      root = READER.readTree(json);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where =
          at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
      throw new InvalidSpecException(
          "the spec is not valid JSON: " + e.getOriginalMessage() + where,
          "",
          "fix the JSON syntax at that position");
    }
    if (root == null || root.isMissingNode()) {
      throw new InvalidSpecException(
          "the spec is empty", "", "write a JSON object with \"version\" and \"steps\"");
    }
    return parse(root);
  }

  /** Parses a JSON tree. The result shares no mutable state with {@code node}. */
  public static RunSpec parse(JsonNode node) {
    Objects.requireNonNull(node, "node");
    ObjectNode root = object(node, "", "the spec");
    onlyFields(root, "", ROOT_FIELDS);

    String version = string(required(root, "", "version"), "/version", "version");
    if (!version.equals(RunSpec.VERSION)) {
      throw new InvalidSpecException(
          "unsupported spec version " + shown(version),
          "/version",
          "this engine reads version \"" + RunSpec.VERSION + "\"");
    }
    String name = optional(root, "name", v -> string(v, "/name", "name")).orElse("");

    JsonNode stepsNode = required(root, "", "steps");
    if (!stepsNode.isArray()) {
      throw wrongType(stepsNode, "/steps", "steps", "an array of steps");
    }
    if (stepsNode.isEmpty()) {
      throw new InvalidSpecException(
          "the spec has no steps", "/steps", "add at least one step to \"steps\"");
    }
    List<StepSpec> steps = new ArrayList<>();
    Map<String, Integer> indexById = new HashMap<>();
    for (int i = 0; i < stepsNode.size(); i++) {
      String p = at("/steps", i);
      StepSpec step = step(stepsNode.get(i), p);
      Integer first = indexById.putIfAbsent(step.id(), i);
      if (first != null) {
        throw new InvalidSpecException(
            "step id \"" + step.id() + "\" is already used by step " + first,
            at(p, "id"),
            "give every step a distinct id");
      }
      steps.add(step);
    }
    SpecGraph.checkDependenciesExist(steps, indexById);
    SpecGraph.checkAcyclic(steps, indexById);
    return new RunSpec(RunSpec.VERSION, name, steps);
  }

  private static StepSpec step(JsonNode node, String p) {
    ObjectNode o = object(node, p, "a step");
    onlyFields(o, p, STEP_FIELDS);
    String id = stepId(required(o, p, "id"), at(p, "id"));
    List<String> dependsOn =
        optional(o, "dependsOn", v -> dependsOn(v, at(p, "dependsOn"), id)).orElse(List.of());
    JsonNode input =
        optional(o, "input", v -> freeJson(v, at(p, "input"))).orElse(NullNode.instance);
    int maxIterations =
        optional(
                o,
                "maxIterations",
                v -> intWithin(v, at(p, "maxIterations"), "maxIterations", 1, Integer.MAX_VALUE))
            .orElse(StepSpec.DEFAULT_MAX_ITERATIONS);
    BackoffPolicy retry =
        optional(o, "retry", v -> retry(v, at(p, "retry"))).orElse(BackoffPolicy.defaults());
    OptionalLong leaseMs = positiveMillis(o, p, "leaseMs");
    OptionalLong timeoutMs = positiveMillis(o, p, "timeoutMs");
    StepBody body = body(o, p, id);
    return new StepSpec(id, dependsOn, input, maxIterations, retry, leaseMs, timeoutMs, body);
  }

  private static String stepId(JsonNode v, String p) {
    String id = string(v, p, "id");
    if (!STEP_ID.matcher(id).matches()) {
      throw new InvalidSpecException(
          "step id " + shown(id) + " is not 1 to " + MAX_STEP_ID_LENGTH + " letters, digits, _ - .",
          p,
          "use only ASCII letters, digits, '_', '-' and '.', at most "
              + MAX_STEP_ID_LENGTH
              + " characters");
    }
    return id;
  }

  private static List<String> dependsOn(JsonNode v, String p, String self) {
    List<String> deps = distinctStrings(v, p, "dependsOn", "a step id");
    for (int j = 0; j < deps.size(); j++) {
      if (deps.get(j).equals(self)) {
        throw new InvalidSpecException(
            "step \"" + self + "\" depends on itself",
            at(p, j),
            "remove \"" + self + "\" from its own dependsOn");
      }
    }
    return deps;
  }

  private static BackoffPolicy retry(JsonNode node, String p) {
    ObjectNode o = object(node, p, "retry");
    onlyFields(o, p, RETRY_FIELDS);
    long initial =
        optional(
                o,
                "initialBackoffMs",
                v -> longAtLeast(v, at(p, "initialBackoffMs"), "initialBackoffMs", 0))
            .orElse(BackoffPolicy.DEFAULT_INITIAL_BACKOFF_MS);
    long max =
        optional(o, "maxBackoffMs", v -> longAtLeast(v, at(p, "maxBackoffMs"), "maxBackoffMs", 0))
            .orElse(BackoffPolicy.DEFAULT_MAX_BACKOFF_MS);
    double multiplier =
        optional(o, "multiplier", v -> multiplier(v, at(p, "multiplier")))
            .orElse(BackoffPolicy.DEFAULT_MULTIPLIER);
    int jitter =
        optional(
                o,
                "jitterPercent",
                v -> intWithin(v, at(p, "jitterPercent"), "jitterPercent", 0, MAX_JITTER_PERCENT))
            .orElse(BackoffPolicy.DEFAULT_JITTER_PERCENT);
    if (max < initial) {
      // Point at whichever of the two the author wrote; a default is nowhere to be fixed.
      boolean maxWritten = o.has("maxBackoffMs");
      throw new InvalidSpecException(
          "maxBackoffMs ("
              + max
              + (maxWritten ? "" : ", the default")
              + ") is less than initialBackoffMs ("
              + initial
              + (o.has("initialBackoffMs") ? "" : ", the default")
              + ")",
          at(p, maxWritten ? "maxBackoffMs" : "initialBackoffMs"),
          "make maxBackoffMs at least initialBackoffMs");
    }
    return new BackoffPolicy(initial, max, multiplier, jitter);
  }

  private static double multiplier(JsonNode v, String p) {
    if (!v.isNumber()) {
      throw wrongType(v, p, "multiplier", "a number");
    }
    double m = v.doubleValue();
    if (!Double.isFinite(m)) {
      throw new InvalidSpecException(
          "multiplier " + v + " is too large", p, "use a multiplier between 1 and a few");
    }
    if (m < 1.0) {
      throw new InvalidSpecException(
          "multiplier " + v + " is less than 1, so delays would shrink",
          p,
          "use a multiplier of at least 1 (1 keeps the delay constant)");
    }
    return m;
  }

  private static OptionalLong positiveMillis(ObjectNode o, String p, String field) {
    return optional(o, field, v -> longAtLeast(v, at(p, field), field, 1))
        .map(OptionalLong::of)
        .orElse(OptionalLong.empty());
  }

  private static StepBody body(ObjectNode o, String p, String id) {
    List<String> kinds =
        fieldNames(o).stream().filter(f -> StepKind.fromWire(f).isPresent()).toList();
    if (kinds.isEmpty()) {
      throw new InvalidSpecException(
          "step \"" + id + "\" has no kind",
          p,
          "add exactly one of \"deterministic\", \"llm\" or \"agent\"");
    }
    if (kinds.size() > 1) {
      throw new InvalidSpecException(
          "step \""
              + id
              + "\" has two kinds, \""
              + kinds.get(0)
              + "\" and \""
              + kinds.get(1)
              + "\"",
          at(p, kinds.get(1)),
          "keep exactly one of \"deterministic\", \"llm\" or \"agent\"");
    }
    String wire = kinds.getFirst();
    JsonNode v = o.get(wire);
    String kp = at(p, wire);
    return switch (StepKind.fromWire(wire).orElseThrow()) {
      case DETERMINISTIC -> deterministic(v, kp);
      case LLM -> llm(v, kp);
      case AGENT -> agent(v, kp);
    };
  }

  private static StepBody.Deterministic deterministic(JsonNode node, String p) {
    ObjectNode o = object(node, p, "deterministic");
    onlyFields(o, p, DETERMINISTIC_FIELDS);
    String cp = at(p, "command");
    JsonNode command = required(o, p, "command");
    Optional<String> cwd = Optional.empty();
    if (o.has("cwd")) {
      String wp = at(p, "cwd");
      String dir = string(o.get("cwd"), wp, "cwd");
      if (!dir.startsWith("/")) {
        throw new InvalidSpecException(
            "cwd must be an absolute path", wp, "give the directory from the root, e.g. /srv/x");
      }
      cwd = Optional.of(dir);
    }
    if (command.isTextual()) {
      nonBlank(command.textValue(), cp, "command", "write the shell command to run");
      return new StepBody.Deterministic(List.of(command.textValue()), true, cwd);
    }
    if (!command.isArray()) {
      throw wrongType(
          command, cp, "command", "a string (run by a shell) or an array of strings (argv)");
    }
    if (command.isEmpty()) {
      throw new InvalidSpecException(
          "command is an empty argv", cp, "name at least the program to run");
    }
    List<String> argv = new ArrayList<>();
    for (int j = 0; j < command.size(); j++) {
      String arg = string(command.get(j), at(cp, j), "an argv element");
      if (arg.isEmpty()) {
        throw new InvalidSpecException(
            "argv element " + j + " is empty", at(cp, j), "remove it or give it a value");
      }
      argv.add(arg);
    }
    return new StepBody.Deterministic(argv, false, cwd);
  }

  private static StepBody.Llm llm(JsonNode node, String p) {
    ObjectNode o = object(node, p, "llm");
    onlyFields(o, p, LLM_FIELDS);
    String prompt = string(required(o, p, "prompt"), at(p, "prompt"), "prompt");
    nonBlank(prompt, at(p, "prompt"), "prompt", "write the prompt");
    String model = optional(o, "model", v -> string(v, at(p, "model"), "model")).orElse("");
    return new StepBody.Llm(prompt, model);
  }

  private static StepBody.Agent agent(JsonNode node, String p) {
    ObjectNode o = object(node, p, "agent");
    onlyFields(o, p, AGENT_FIELDS);
    String ip = at(p, "instruction");
    ObjectNode instruction = object(required(o, p, "instruction"), ip, "instruction");
    String type = string(required(instruction, ip, "type"), at(ip, "type"), "type");
    nonBlank(type, at(ip, "type"), "type", "name the instruction type, e.g. \"mcp\"");
    freeJson(instruction, ip);
    RecoveryMode mode =
        optional(o, "recoveryMode", v -> recoveryMode(v, at(p, "recoveryMode")))
            .orElse(RecoveryMode.RESET);
    List<String> external =
        optional(o, "surfaces", v -> surfaces(v, at(p, "surfaces"))).orElse(List.of());
    return new StepBody.Agent(instruction, mode, external);
  }

  private static RecoveryMode recoveryMode(JsonNode v, String p) {
    String wire = string(v, p, "recoveryMode");
    return RecoveryMode.fromWire(wire)
        .orElseThrow(
            () ->
                new InvalidSpecException(
                    "recoveryMode "
                        + shown(wire)
                        + " is not one of "
                        + wires(RecoveryMode.values()),
                    p,
                    "use one of " + wires(RecoveryMode.values())));
  }

  private static List<String> surfaces(JsonNode node, String p) {
    ObjectNode o = object(node, p, "surfaces");
    onlyFields(o, p, SURFACES_FIELDS);
    String ep = at(p, "external");
    List<String> paths =
        optional(o, "external", v -> distinctStrings(v, ep, "external", "a surface path"))
            .orElse(List.of());
    for (int j = 0; j < paths.size(); j++) {
      if (!paths.get(j).startsWith("/")) {
        throw new InvalidSpecException(
            "surface path " + shown(paths.get(j)) + " does not start with \"/\"",
            at(ep, j),
            "write an absolute surface path such as \"/mcp/<server>/<tool>\"");
      }
    }
    return paths;
  }
}
