package dev.flows.kernel.spec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SharedInstructionsTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  /** A flow body's spec with an inventory of one stdio server, as JSON text (single-quoted). */
  private static String bodySpec(String flow, String classPath) {
    return ("{'version':'0.1.0','name':'"
            + flow
            + "','steps':[{'id':'body','agent':{"
            + "'instruction':{'type':'flow','flow':'"
            + flow
            + "','version':'1',"
            + "'origin':{'kind':'class','className':'x."
            + flow
            + "'},"
            + "'mcp':{'stdio':{'connection':{'name':'stdio','transport':'stdio','command':'java',"
            + "'args':['-cp','"
            + classPath
            + "','Main'],'env':{'A':'1'}},"
            + "'idempotencyKeys':false,'tools':{'sleep':{'readOnlyHint':true}}}}},"
            + "'recoveryMode':'inspect','surfaces':{'external':['/memo/*']}}}]}")
        .replace('\'', '"');
  }

  private static JsonNode instruction(RunSpec spec) {
    return ((StepBody.Agent) spec.steps().getFirst().body()).instruction();
  }

  private static String uniqueClassPath(String tag) {
    return "/opt/" + tag + "/" + System.nanoTime() + "/lib.jar";
  }

  @Test
  void twoParsedSpecsWithEqualInventoriesShareOneInventoryInstanceAndReadBackUnchanged()
      throws Exception {
    String text = bodySpec("shared", uniqueClassPath("a"));
    RunSpec first = RunSpecParser.parse(text);
    RunSpec second = RunSpecParser.parse(text);

    assertThat(instruction(second).get("mcp")).isSameAs(instruction(first).get("mcp"));
    assertThat(instruction(second).get("origin")).isSameAs(instruction(first).get("origin"));
    assertThat(instruction(second)).isNotSameAs(instruction(first));
    // Values unchanged: the written spec is the text that was parsed, field for field and in order.
    JsonNode parsed = RunSpecJson.MAPPER.readTree(text);
    JsonNode original = parsed.get("steps").get(0).get("agent").get("instruction");
    assertThat(instruction(second)).isEqualTo(original);
    assertThat(instruction(second).toString()).isEqualTo(original.toString());
    assertThat(RunSpecParser.parse(RunSpecJson.write(second))).isEqualTo(second);
    assertThat(RunSpecJson.hash(second)).isEqualTo(RunSpecJson.hash(first));
  }

  @Test
  void specsWithDifferentInventoriesKeepTheirOwn() {
    RunSpec a = RunSpecParser.parse(bodySpec("f", uniqueClassPath("a")));
    RunSpec b = RunSpecParser.parse(bodySpec("f", uniqueClassPath("b")));

    assertThat(instruction(a).get("mcp")).isNotEqualTo(instruction(b).get("mcp"));
    assertThat(instruction(a).get("origin")).isSameAs(instruction(b).get("origin"));
  }

  @Test
  void anMcpCallsConnectionIsTheSameInstanceAsTheInventorysConnection() {
    RunSpec body = RunSpecParser.parse(bodySpec("caller", uniqueClassPath("c")));
    // What f.mcp does: copy the inventory's connection into a child's instruction (here a copy,
    // as a body replayed elsewhere would hold an equal, separately parsed one).
    JsonNode fromInventory = instruction(body).get("mcp").get("stdio").get("connection");
    ObjectNode call = F.objectNode().put("type", "mcp").put("server", "stdio").put("tool", "sleep");
    call.set("input", F.objectNode().put("ms", 5));
    call.set("connection", fromInventory.deepCopy());

    StepBody.Agent child =
        new StepBody.Agent(call, RecoveryMode.INSPECT, List.of("/mcp/stdio/sleep"));

    assertThat(child.instruction().get("connection")).isSameAs(fromInventory);
    assertThat(child.instruction()).isEqualTo(call);
  }

  @Test
  void aCallerEditingItsTreeAfterBuildingASpecChangesNeitherThatSpecNorTheSharedInstance() {
    ObjectNode mcp = F.objectNode();
    mcp.putObject("s").putObject("connection").put("url", "http://" + System.nanoTime());
    ObjectNode instruction = F.objectNode().put("type", "flow");
    instruction.set("mcp", mcp);
    StepBody.Agent a = new StepBody.Agent(instruction, RecoveryMode.INSPECT, List.of());
    JsonNode before = a.instruction().deepCopy();

    ((ObjectNode) mcp.get("s").get("connection")).put("url", "http://edited");
    instruction.put("type", "edited");
    StepBody.Agent b =
        new StepBody.Agent(before.deepCopy(), RecoveryMode.INSPECT, List.of("/memo/*"));

    assertThat(a.instruction()).isEqualTo(before);
    assertThat(b.instruction().get("mcp")).isSameAs(a.instruction().get("mcp"));
  }

  @Test
  void aStepSpecRoundTripsThroughTheCanonicalWriterWithSharedParts() {
    ObjectNode instruction = F.objectNode().put("type", "mcp").put("server", "s");
    instruction.putObject("connection").put("transport", "http").put("url", "http://x");
    StepSpec s =
        new StepSpec(
            "call",
            List.of(),
            F.objectNode().put("q", 1),
            1,
            BackoffPolicy.defaults(),
            OptionalLong.empty(),
            OptionalLong.empty(),
            new StepBody.Agent(instruction, RecoveryMode.INSPECT, List.of("/mcp/s/t")));
    RunSpec spec = new RunSpec(RunSpec.VERSION, "n", List.of(s));

    assertThat(RunSpecParser.parse(RunSpecJson.write(spec))).isEqualTo(spec);
    assertThat(instruction(RunSpecParser.parse(RunSpecJson.write(spec))).get("connection"))
        .isSameAs(instruction(spec).get("connection"));
  }
}
