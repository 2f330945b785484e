package dev.flows.kernel.instruction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction.Origin;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepBody;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Each instruction record owns its JSON form: it writes exactly the tree flows wrote before the
 * records existed (so runs already journaled read back and child specs hash alike), reads it back
 * to an equal record, and refuses a malformed tree naming the field.
 */
class InstructionCodecTest {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private static ObjectNode connection() {
    ObjectNode c = F.objectNode().put("transport", "stdio").put("command", "java");
    c.putArray("args").add("-cp").add("/opt/x.jar");
    return c;
  }

  private static ObjectNode inventory() {
    ObjectNode inv = F.objectNode();
    ObjectNode s = inv.putObject("stdio");
    s.set("connection", connection());
    s.put("idempotencyKeys", false);
    s.putObject("tools").putObject("sleep").put("readOnlyHint", true);
    return inv;
  }

  /** An MCP call's instruction as the sdk built it by hand before the record. */
  private static ObjectNode handBuiltCall(
      String server, String tool, JsonNode input, JsonNode conn, boolean mayReperform) {
    ObjectNode instruction = F.objectNode();
    instruction.put("type", "mcp").put("server", server).put("tool", tool);
    instruction.set("input", input);
    instruction.set("connection", conn);
    instruction.put("mayReperform", mayReperform);
    return instruction;
  }

  /** A flow body's instruction as the sdk built it by hand before the record. */
  private static ObjectNode handBuiltBody(String name, String version, Origin origin) {
    ObjectNode instruction = F.objectNode();
    instruction.put("type", "flow").put("flow", name).put("version", version);
    ObjectNode o = instruction.putObject("origin");
    switch (origin) {
      case Origin.ClassFlow c -> {
        o.put("kind", "class").put("className", c.className());
        instruction.put("route", name + "@" + version);
      }
      case Origin.SourceFlow s -> {
        o.put("kind", "source")
            .put("className", s.className())
            .put("sourceHash", s.sourceHash())
            .put("source", s.source());
        s.dir().ifPresent(d -> o.put("dir", d));
        s.file().ifPresent(f -> o.put("file", f));
        instruction.put("route", "source:" + s.sourceHash());
      }
    }
    instruction.set("mcp", inventory());
    return instruction;
  }

  @Test
  void anMcpCallIsWrittenFieldForFieldAsBeforeAndReadsBackEqual() {
    ObjectNode input = F.objectNode().put("ms", 5);
    input.putArray("tags").add("a").add(2);
    McpCallInstruction call = new McpCallInstruction("stdio", "sleep", input, connection(), true);

    ObjectNode json = call.toJson();

    ObjectNode before = handBuiltCall("stdio", "sleep", input, connection(), true);
    assertThat(json.toString()).isEqualTo(before.toString());
    assertThat(RunSpecJson.canonicalText(json)).isEqualTo(RunSpecJson.canonicalText(before));
    assertThat(McpCallInstruction.fromJson(json)).isEqualTo(call);
    assertThat(Instruction.fromJson(json)).contains(call);
    assertThat(call.surface()).isEqualTo("/mcp/stdio/sleep");
  }

  @Test
  void aFlowBodyOfEachOriginIsWrittenFieldForFieldAsBeforeAndReadsBackEqual() {
    List<Origin> origins =
        List.of(
            new Origin.ClassFlow("com.acme.Triage"),
            new Origin.SourceFlow("Triage", "class Triage {}", "ab12"),
            new Origin.SourceFlow("Triage", "class Triage {}", "ab12", Optional.of("/srv/flows")),
            new Origin.SourceFlow(
                "Triage",
                "class Triage {}",
                "ab12",
                Optional.of("/srv/flows"),
                Optional.of("/srv/flows/triage.flow.java")));
    for (Origin origin : origins) {
      FlowBodyInstruction body = FlowBodyInstruction.of("triage", "3", origin, inventory());

      ObjectNode json = body.toJson();

      assertThat(json.toString()).isEqualTo(handBuiltBody("triage", "3", origin).toString());
      assertThat(FlowBodyInstruction.fromJson(json)).isEqualTo(body);
      assertThat(Instruction.fromJson(json)).contains(body);
    }
  }

  @Test
  void aFlowBodyAdmittedBeforeRoutesReadsWithoutARouteAndWritesBackUnchanged() {
    ObjectNode old = handBuiltBody("triage", "1", new Origin.ClassFlow("com.acme.Triage"));
    old.remove("route");

    FlowBodyInstruction body = FlowBodyInstruction.fromJson(old);

    assertThat(body.route()).isEmpty();
    assertThat(body.toJson().toString()).isEqualTo(old.toString());
  }

  @Test
  void anMcpCallWithoutMayReperformReadsAsNeverSendingAgain() {
    ObjectNode json = handBuiltCall("s", "t", F.objectNode(), connection(), true);
    json.remove("mayReperform");

    assertThat(McpCallInstruction.fromJson(json).mayReperform()).isFalse();
  }

  @Test
  void anMcpCallsPolicyRoundTripsAndABadOnUnknownOutcomeIsRefusedNamingTheField() {
    McpCallInstruction call =
        new McpCallInstruction(
            "s",
            "t",
            F.objectNode(),
            connection(),
            true,
            java.util.Optional.of(McpCallInstruction.OnUnknownOutcome.FAIL),
            java.util.Optional.of(List.of("timeout")));
    ObjectNode json = call.toJson();

    assertThat(json.path("onUnknownOutcome").asText()).isEqualTo("fail");
    assertThat(McpCallInstruction.fromJson(json)).isEqualTo(call);
    assertThat(call.reperforms()).isFalse();
    assertThat(call.failsOnUnknownOutcome()).isTrue();
    assertThat(call.retries("timeout")).isFalse();
    assertThat(call.retries("mcp_disconnected")).isTrue();
    json.put("onUnknownOutcome", "maybe");
    assertThatThrownBy(() -> McpCallInstruction.fromJson(json))
        .isInstanceOf(dev.flows.kernel.FlowsException.class)
        .hasMessageContaining("onUnknownOutcome");
  }

  @Test
  void anMcpCallWithoutAPolicyWritesNoPolicyFieldsAndRetriesNoTimeout() {
    McpCallInstruction call = new McpCallInstruction("s", "t", F.objectNode(), connection(), true);

    assertThat(call.toJson().has("onUnknownOutcome")).isFalse();
    assertThat(call.toJson().has("doNotRetry")).isFalse();
    assertThat(call.reperforms()).isTrue();
    assertThat(call.retries("timeout")).isFalse();
  }

  @Test
  void anInstructionIsReadFromTheAgentStepThatCarriesIt() {
    McpCallInstruction call =
        new McpCallInstruction("s", "t", F.objectNode().put("q", 1), connection(), false);
    StepBody.Agent agent =
        new StepBody.Agent(call.toJson(), RecoveryMode.INSPECT, List.of(call.surface()));

    assertThat(McpCallInstruction.of(agent)).isEqualTo(call);
    assertThat(Instruction.of(agent)).contains(call);
  }

  @Test
  void anAgentInstructionOfAnotherTypeIsNoneOfFlowsOwn() {
    assertThat(Instruction.fromJson(F.objectNode().put("type", "test").put("x", 1))).isEmpty();
    assertThat(Instruction.fromJson(F.objectNode())).isEmpty();
  }

  @Test
  void aMalformedMcpCallIsRefusedNamingTheField() {
    refused(
        handBuiltCall("s", "t", F.objectNode(), connection(), false),
        j -> j.remove("server"),
        "instruction.server");
    refused(
        handBuiltCall("s", "t", F.objectNode(), connection(), false),
        j -> j.put("tool", 7),
        "instruction.tool");
    refused(
        handBuiltCall("s", "t", F.objectNode(), connection(), false),
        j -> j.remove("input"),
        "instruction.input");
    refused(
        handBuiltCall("s", "t", F.objectNode(), connection(), false),
        j -> j.put("connection", "http://x"),
        "instruction.connection");
    refused(
        handBuiltCall("s", "t", F.objectNode(), connection(), false),
        j -> j.put("mayReperform", "yes"),
        "instruction.mayReperform");
  }

  @Test
  void aMalformedFlowBodyIsRefusedNamingTheField() {
    Origin source = new Origin.SourceFlow("T", "class T {}", "ab");
    Origin cls = new Origin.ClassFlow("com.acme.T");
    refused(handBuiltBody("t", "1", cls), j -> j.remove("version"), "instruction.version");
    refused(handBuiltBody("t", "1", cls), j -> j.remove("mcp"), "instruction.mcp");
    refused(handBuiltBody("t", "1", cls), j -> j.remove("origin"), "instruction.origin");
    refused(
        handBuiltBody("t", "1", source),
        j -> ((ObjectNode) j.get("origin")).remove("sourceHash"),
        "instruction.origin.sourceHash");
    refused(
        handBuiltBody("t", "1", source),
        j -> ((ObjectNode) j.get("origin")).put("dir", 3),
        "instruction.origin.dir");
    refused(
        handBuiltBody("t", "1", cls),
        j -> ((ObjectNode) j.get("origin")).put("kind", "jar"),
        "instruction.origin.kind");
  }

  @Test
  void aTreeOfTheOtherTypeOrNoObjectIsRefusedByEachCodec() {
    ObjectNode body = handBuiltBody("t", "1", new Origin.ClassFlow("T"));
    assertThatThrownBy(() -> McpCallInstruction.fromJson(body))
        .isInstanceOf(FlowsException.class)
        .satisfies(e -> assertThat(((FlowsException) e).place()).contains("instruction.type"));
    assertThatThrownBy(() -> FlowBodyInstruction.fromJson(F.arrayNode()))
        .isInstanceOf(FlowsException.class)
        .satisfies(e -> assertThat(((FlowsException) e).code()).isEqualTo(ErrorCode.INVALID_INPUT));
  }

  private static void refused(ObjectNode json, Consumer<ObjectNode> breakIt, String place) {
    breakIt.accept(json);
    assertThatThrownBy(() -> Instruction.fromJson(json))
        .isInstanceOf(FlowsException.class)
        .satisfies(
            e -> {
              FlowsException f = (FlowsException) e;
              assertThat(f.code()).isEqualTo(ErrorCode.INVALID_INPUT);
              assertThat(f.place()).contains(place);
              assertThat(f.getMessage()).contains(place.substring(place.lastIndexOf('.') + 1));
            });
  }
}
