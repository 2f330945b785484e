package dev.flows.journalstore;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.util.List;
import java.util.OptionalLong;

/** Small run specs for the Postgres tests, built from the kernel records. */
final class Specs {
  /** Fast retries so expiry tests do not wait on the default 100 ms+ backoff. */
  static final BackoffPolicy QUICK_RETRY = new BackoffPolicy(1, 5, 2.0, 0);

  private Specs() {}

  static RunSpec run(String name, StepSpec... steps) {
    return new RunSpec(RunSpec.VERSION, name, List.of(steps));
  }

  static StepSpec llm(String id, int maxIterations, List<String> dependsOn) {
    return new StepSpec(
        id,
        dependsOn,
        JsonNodeFactory.instance.objectNode().put("n", id),
        maxIterations,
        QUICK_RETRY,
        OptionalLong.empty(),
        OptionalLong.empty(),
        new StepBody.Llm("say " + id, ""));
  }

  static StepSpec llm(String id) {
    return llm(id, 1, List.of());
  }

  static StepSpec agent(String id, int maxIterations, String... surfaces) {
    return new StepSpec(
        id,
        List.of(),
        JsonNodeFactory.instance.nullNode(),
        maxIterations,
        QUICK_RETRY,
        OptionalLong.empty(),
        OptionalLong.of(30_000),
        new StepBody.Agent(
            JsonNodeFactory.instance.objectNode().put("type", "mcp.call"),
            RecoveryMode.INSPECT,
            List.of(surfaces)));
  }

  static StepSpec shell(String id) {
    return new StepSpec(
        id,
        List.of(),
        JsonNodeFactory.instance.arrayNode().add(1).add("x"),
        2,
        BackoffPolicy.defaults(),
        OptionalLong.of(1_500),
        OptionalLong.empty(),
        new StepBody.Deterministic(List.of("echo hi"), true));
  }

  static StepSpec argv(String id) {
    return new StepSpec(
        id,
        List.of(),
        JsonNodeFactory.instance.nullNode(),
        1,
        BackoffPolicy.defaults(),
        OptionalLong.empty(),
        OptionalLong.empty(),
        new StepBody.Deterministic(List.of("ls", "-l"), false));
  }
}
