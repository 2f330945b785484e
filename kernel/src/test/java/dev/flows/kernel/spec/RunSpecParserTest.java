package dev.flows.kernel.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.InvalidSpecException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RunSpecParserTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private static RunSpec parse(String singleQuoted) {
    return RunSpecParser.parse(singleQuoted.replace('\'', '"'));
  }

  @Test
  void aMinimalStepGetsEveryDefault() {
    RunSpec spec =
        parse(
            "{'version':'0.1.0','steps':["
                + "{'id':'d','deterministic':{'command':'make test'}},"
                + "{'id':'l','llm':{'prompt':'summarise'}},"
                + "{'id':'g','agent':{'instruction':{'type':'mcp'}}}]}");

    assertThat(spec.version()).isEqualTo("0.1.0");
    assertThat(spec.name()).isEmpty();
    StepSpec d = spec.step("d").orElseThrow();
    assertThat(d.dependsOn()).isEmpty();
    assertThat(d.input()).isEqualTo(NullNode.instance);
    assertThat(d.maxIterations()).isEqualTo(1);
    assertThat(d.retry()).isEqualTo(new BackoffPolicy(100, 60_000, 2.0, 20));
    assertThat(d.leaseMs()).isEmpty();
    assertThat(d.timeoutMs()).isEmpty();
    assertThat(d.body()).isEqualTo(new StepBody.Deterministic(List.of("make test"), true));
    assertThat(spec.step("l").orElseThrow().body()).isEqualTo(new StepBody.Llm("summarise", ""));
    StepBody.Agent agent = (StepBody.Agent) spec.step("g").orElseThrow().body();
    assertThat(agent.recoveryMode()).isEqualTo(RecoveryMode.RESET);
    assertThat(agent.externalSurfaces()).isEmpty();
    assertThat(agent.instructionType()).isEqualTo("mcp");
  }

  @Test
  void aCommandsWorkingDirectoryIsReadAndWrittenBackAndARelativeOneIsRefused() {
    RunSpec spec =
        parse(
            "{'version':'0.1.0','steps':[{'id':'a',"
                + "'deterministic':{'command':'ls','cwd':'/srv/flows'}}]}");
    StepBody.Deterministic d = (StepBody.Deterministic) spec.steps().getFirst().body();
    assertThat(d.cwd()).contains("/srv/flows");
    assertThat(RunSpecParser.parse(RunSpecJson.write(spec))).isEqualTo(spec);
    assertThat(RunSpecJson.hash(spec))
        .isNotEqualTo(
            RunSpecJson.hash(
                parse(
                    "{'version':'0.1.0','steps':[{'id':'a','deterministic':{'command':'ls'}}]}")));
    assertThatThrownBy(
            () ->
                parse(
                    "{'version':'0.1.0','steps':[{'id':'a',"
                        + "'deterministic':{'command':'ls','cwd':'flows'}}]}"))
        .isInstanceOf(InvalidSpecException.class)
        .satisfies(
            e ->
                assertThat(((InvalidSpecException) e).pointer())
                    .isEqualTo("/steps/0/deterministic/cwd"));
  }

  @Test
  void aPartialRetryPolicyKeepsTheDefaultsItDoesNotMention() {
    RunSpec spec =
        parse(
            "{'version':'0.1.0','steps':[{'id':'a','retry':{'jitterPercent':0,'multiplier':3},"
                + "'deterministic':{'command':['echo','hi']}}]}");

    assertThat(spec.steps().getFirst().retry()).isEqualTo(new BackoffPolicy(100, 60_000, 3.0, 0));
  }

  @Test
  void everyFieldIsReadAsWritten() {
    RunSpec spec =
        parse(
            "{'version':'0.1.0','name':'onboard','steps':["
                + "{'id':'fetch','deterministic':{'command':['curl','-s','x']}},"
                + "{'id':'create.customer-1_b','dependsOn':['fetch'],'input':{'email':'a@b.c',"
                + "'n':[1,2.5,null,true]},'maxIterations':3,'retry':{'initialBackoffMs':0,"
                + "'maxBackoffMs':0,'multiplier':1,'jitterPercent':100},'leaseMs':30000,"
                + "'timeoutMs':5000,'agent':{'instruction':{'type':'mcp','server':'stripe',"
                + "'tool':'create_customer','args':{'k':'v'}},'recoveryMode':'inspect',"
                + "'surfaces':{'external':['/mcp/stripe/create_customer']}}},"
                + "{'id':'say','dependsOn':['create.customer-1_b','fetch'],"
                + "'llm':{'prompt':'hello','model':'small'}}]}");

    assertThat(spec.name()).isEqualTo("onboard");
    StepSpec agentStep = spec.steps().get(1);
    assertThat(agentStep.dependsOn()).containsExactly("fetch");
    assertThat(agentStep.input().path("n").get(1).doubleValue()).isEqualTo(2.5);
    assertThat(agentStep.maxIterations()).isEqualTo(3);
    assertThat(agentStep.retry()).isEqualTo(new BackoffPolicy(0, 0, 1.0, 100));
    assertThat(agentStep.leaseMs()).isEqualTo(OptionalLong.of(30_000));
    assertThat(agentStep.timeoutMs()).isEqualTo(OptionalLong.of(5_000));
    StepBody.Agent agent = (StepBody.Agent) agentStep.body();
    assertThat(agent.recoveryMode()).isEqualTo(RecoveryMode.INSPECT);
    assertThat(agent.externalSurfaces()).containsExactly("/mcp/stripe/create_customer");
    assertThat(agent.instruction().path("args").path("k").asText()).isEqualTo("v");
    assertThat(spec.steps().get(0).body())
        .isEqualTo(new StepBody.Deterministic(List.of("curl", "-s", "x"), false));
    assertThat(spec.steps().get(2).dependsOn()).containsExactly("create.customer-1_b", "fetch");
    assertThat(spec.steps().get(2).body()).isEqualTo(new StepBody.Llm("hello", "small"));
  }

  @Test
  void spellingOutTheDefaultsGivesTheSameSpecAndHash() {
    RunSpec terse =
        parse("{'version':'0.1.0','steps':[{'id':'a','agent':{'instruction':{'type':'t'}}}]}");
    RunSpec spelled =
        parse(
            "{'version':'0.1.0','name':'','steps':[{'id':'a','dependsOn':[],'input':null,"
                + "'maxIterations':1,'retry':{'initialBackoffMs':100,'maxBackoffMs':60000,"
                + "'multiplier':2,'jitterPercent':20},'agent':{'instruction':{'type':'t'},"
                + "'recoveryMode':'reset','surfaces':{'external':[]}}}]}");

    assertThat(spelled).isEqualTo(terse);
    assertThat(RunSpecJson.hash(spelled)).isEqualTo(RunSpecJson.hash(terse));
  }

  @Test
  void theCanonicalFormOfEveryKindParsesBackToTheSameSpec() {
    RunSpec spec =
        new RunSpec(
            "0.1.0",
            "all kinds",
            List.of(
                new StepSpec(
                    "shell",
                    List.of(),
                    NullNode.instance,
                    1,
                    BackoffPolicy.defaults(),
                    OptionalLong.empty(),
                    OptionalLong.empty(),
                    new StepBody.Deterministic(List.of("echo hi | wc -c"), true)),
                new StepSpec(
                    "argv",
                    List.of("shell"),
                    F.objectNode().put("x", 1).put("y", "z"),
                    4,
                    new BackoffPolicy(250, 1_000, 1.5, 0),
                    OptionalLong.of(10_000),
                    OptionalLong.of(2_000),
                    new StepBody.Deterministic(List.of("echo", "a b"), false)),
                new StepSpec(
                    "ask",
                    List.of("argv", "shell"),
                    F.arrayNode().add(true).add(F.nullNode()),
                    2,
                    BackoffPolicy.defaults(),
                    OptionalLong.empty(),
                    OptionalLong.of(60_000),
                    new StepBody.Llm("say hi", "big")),
                new StepSpec(
                    "act",
                    List.of("ask"),
                    F.textNode("in"),
                    1,
                    BackoffPolicy.defaults(),
                    OptionalLong.of(30_000),
                    OptionalLong.empty(),
                    new StepBody.Agent(
                        F.objectNode().put("type", "mcp").put("tool", "t"),
                        RecoveryMode.MANUAL,
                        List.of("/mcp/s/t", "/fs/out")))));

    assertThat(RunSpecParser.parse(RunSpecJson.write(spec))).isEqualTo(spec);
    assertThat(RunSpecParser.parse(RunSpecJson.canonicalText(RunSpecJson.write(spec))))
        .isEqualTo(spec);
  }

  @Test
  void generatedSpecsSurviveTheCanonicalWriterAsTreeAndAsText() {
    Random random = new Random(20261129L);
    for (int n = 0; n < 300; n++) {
      RunSpec spec = randomSpec(random);
      ObjectNode written = RunSpecJson.write(spec);

      assertThat(RunSpecParser.parse(written)).as("tree %s", written).isEqualTo(spec);
      assertThat(RunSpecParser.parse(RunSpecJson.canonicalText(written)))
          .as("text %s", written)
          .isEqualTo(spec);
    }
  }

  @Test
  void theParsedSpecDoesNotShareTheCallersTree() {
    ObjectNode tree =
        RunSpecJson.write(
            parse(
                "{'version':'0.1.0','steps':[{'id':'a','input':{'k':1},"
                    + "'agent':{'instruction':{'type':'t'}}}]}"));
    RunSpec spec = RunSpecParser.parse(tree);

    ObjectNode step = (ObjectNode) tree.get("steps").get(0);
    ((ObjectNode) step.get("input")).put("k", 2);
    ((ObjectNode) step.get("agent").get("instruction")).put("type", "changed");

    assertThat(spec.steps().getFirst().input().get("k").intValue()).isEqualTo(1);
    assertThat(((StepBody.Agent) spec.steps().getFirst().body()).instructionType()).isEqualTo("t");
  }

  @Test
  void aLongChainParsesAndALongCycleIsRefusedWithoutExhaustingTheStack() {
    int length = 5_000;
    StringBuilder chain = new StringBuilder("{'version':'0.1.0','steps':[");
    for (int i = 0; i < length; i++) {
      String deps = i == 0 ? "" : "'s" + (i - 1) + "'";
      chain.append(i == 0 ? "" : ",");
      chain.append("{'id':'s").append(i).append("','dependsOn':[").append(deps);
      chain.append("],'deterministic':{'command':'true'}}");
    }
    String chainJson = chain + "]}";
    assertThat(parse(chainJson).steps()).hasSize(length);

    String cycleJson =
        chainJson.replace(
            "{'id':'s0','dependsOn':[]", "{'id':'s0','dependsOn':['s" + (length - 1) + "']");
    assertThatThrownBy(() -> parse(cycleJson))
        .isInstanceOfSatisfying(
            InvalidSpecException.class,
            e -> {
              assertThat(e.pointer()).isEqualTo("/steps/0");
              assertThat(e.getMessage())
                  .startsWith("dependency cycle: \"s0\" -> \"s" + (length - 1) + "\"");
            });
  }

  @Test
  void forwardDependenciesAreAllowed() {
    RunSpec spec =
        parse(
            "{'version':'0.1.0','steps':[{'id':'b','dependsOn':['a'],'llm':{'prompt':'p'}},"
                + "{'id':'a','llm':{'prompt':'q'}}]}");

    assertThat(spec.steps().getFirst().dependsOn()).containsExactly("a");
  }

  private static RunSpec randomSpec(Random r) {
    int count = 1 + r.nextInt(6);
    List<StepSpec> steps = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      List<String> deps = new ArrayList<>();
      for (int j = 0; j < i; j++) {
        if (r.nextInt(3) == 0) {
          deps.add("step-" + j);
        }
      }
      long initial = r.nextInt(5_000);
      BackoffPolicy retry =
          r.nextBoolean()
              ? BackoffPolicy.defaults()
              : new BackoffPolicy(
                  initial, initial + r.nextInt(100_000), 1.0 + r.nextDouble() * 3, r.nextInt(101));
      steps.add(
          new StepSpec(
              "step-" + i,
              deps,
              randomJson(r, 2),
              1 + r.nextInt(10),
              retry,
              r.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(1 + r.nextInt(100_000)),
              r.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(1 + r.nextInt(100_000)),
              randomBody(r)));
    }
    return new RunSpec("0.1.0", r.nextBoolean() ? "" : "run " + r.nextInt(100), steps);
  }

  private static StepBody randomBody(Random r) {
    return switch (StepKind.values()[r.nextInt(StepKind.values().length)]) {
      case DETERMINISTIC ->
          r.nextBoolean()
              ? new StepBody.Deterministic(List.of("echo " + r.nextInt()), true)
              : new StepBody.Deterministic(List.of("prog", "--n=" + r.nextInt(9)), false);
      case LLM -> new StepBody.Llm("prompt " + r.nextInt(), r.nextBoolean() ? "" : "m");
      case AGENT -> {
        ObjectNode instruction = F.objectNode().put("type", "mcp");
        instruction.set("args", randomJson(r, 2));
        RecoveryMode mode = RecoveryMode.values()[r.nextInt(RecoveryMode.values().length)];
        yield new StepBody.Agent(
            instruction, mode, r.nextBoolean() ? List.of() : List.of("/mcp/s/t" + r.nextInt(9)));
      }
    };
  }

  /** Only node types that parsing JSON text produces, so text round trips compare equal. */
  private static JsonNode randomJson(Random r, int depth) {
    return switch (r.nextInt(depth > 0 ? 7 : 5)) {
      case 0 -> F.nullNode();
      case 1 -> F.booleanNode(r.nextBoolean());
      case 2 -> F.numberNode(r.nextInt());
      case 3 -> F.numberNode(r.nextDouble() * 1e6);
      case 4 -> F.textNode("s~/\"" + r.nextInt(100));
      case 5 -> {
        ObjectNode o = F.objectNode();
        for (int i = r.nextInt(3); i > 0; i--) {
          o.set("k" + r.nextInt(100), randomJson(r, depth - 1));
        }
        yield o;
      }
      default -> {
        var a = F.arrayNode();
        for (int i = r.nextInt(3); i > 0; i--) {
          a.add(randomJson(r, depth - 1));
        }
        yield a;
      }
    };
  }
}
