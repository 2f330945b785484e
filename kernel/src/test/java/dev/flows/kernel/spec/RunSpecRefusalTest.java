package dev.flows.kernel.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.InvalidSpecException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One row per refusal of the fail-closed parser: each must name its own place with an exact RFC
 * 6901 pointer and say what is wrong. JSON is written with single quotes for readability.
 */
class RunSpecRefusalTest {
  private static final String CMD = "'deterministic':{'command':'true'}";

  /** A valid spec whose only step is {@code {'id':'a', CMD, <extra>}}. */
  private static String oneStep(String extra) {
    return "{'version':'0.1.0','steps':[{'id':'a'," + CMD + extra + "}]}";
  }

  /** A valid spec whose only step has id 'a' and the given kind body. */
  private static String kind(String body) {
    return "{'version':'0.1.0','steps':[{'id':'a'," + body + "}]}";
  }

  private static String steps(String steps) {
    return "{'version':'0.1.0','steps':[" + steps + "]}";
  }

  private static String step(String id, String deps) {
    return "{'id':'" + id + "','dependsOn':[" + deps + "]," + CMD + "}";
  }

  private static Arguments refusal(String name, String json, String pointer, String says) {
    return Arguments.of(name, json.replace('\'', '"'), pointer, says);
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        // malformed documents: the whole document is the place
        refusal("malformed JSON", "{'version':", "", "not valid JSON"),
        refusal("empty document", "   ", "", "empty"),
        refusal("text after the document", oneStep("") + " {}", "", "not valid JSON"),
        refusal("duplicate key", "{'version':'0.1.0','version':'0.1.0'}", "", "version"),
        refusal("not an object", "[1,2]", "", "must be an object, got an array"),
        refusal("JSON null document", "null", "", "must be an object, got null"),
        // unknown fields, at every level
        refusal(
            "unknown root field",
            oneStep("").replace("{'version'", "{'x':1,'version'"),
            "/x",
            "unknown field \"x\""),
        refusal(
            "unknown step field",
            oneStep(",'depends_on':[]"),
            "/steps/0/depends_on",
            "unknown field \"depends_on\""),
        refusal(
            "unknown field with ~ and /",
            oneStep(",'a/b~c':1"),
            "/steps/0/a~1b~0c",
            "unknown field \"a/b~c\""),
        refusal(
            "unknown retry field",
            oneStep(",'retry':{'backoff':1}"),
            "/steps/0/retry/backoff",
            "unknown field"),
        refusal(
            "unknown deterministic field",
            kind("'deterministic':{'command':'x','shell':true}"),
            "/steps/0/deterministic/shell",
            "unknown field"),
        refusal(
            "unknown llm field",
            kind("'llm':{'prompt':'p','temperature':1}"),
            "/steps/0/llm/temperature",
            "unknown field"),
        refusal(
            "unknown agent field",
            kind("'agent':{'instruction':{'type':'t'},'tools':[]}"),
            "/steps/0/agent/tools",
            "unknown field"),
        refusal(
            "unknown surfaces field",
            kind("'agent':{'instruction':{'type':'t'},'surfaces':{'internal':[]}}"),
            "/steps/0/agent/surfaces/internal",
            "unknown field"),
        // missing required fields: the pointer is where the field should be
        refusal(
            "missing version",
            "{'steps':[{'id':'a'," + CMD + "}]}",
            "/version",
            "missing required field \"version\""),
        refusal(
            "missing steps", "{'version':'0.1.0'}", "/steps", "missing required field \"steps\""),
        refusal(
            "missing step id",
            steps("{" + CMD + "}"),
            "/steps/0/id",
            "missing required field \"id\""),
        refusal(
            "missing command",
            kind("'deterministic':{}"),
            "/steps/0/deterministic/command",
            "missing required field \"command\""),
        refusal(
            "missing prompt",
            kind("'llm':{'model':'m'}"),
            "/steps/0/llm/prompt",
            "missing required field \"prompt\""),
        refusal(
            "missing instruction",
            kind("'agent':{'recoveryMode':'reset'}"),
            "/steps/0/agent/instruction",
            "missing required field \"instruction\""),
        refusal(
            "missing instruction type",
            kind("'agent':{'instruction':{'server':'s'}}"),
            "/steps/0/agent/instruction/type",
            "missing required field \"type\""),
        // wrong types
        refusal(
            "version not a string",
            "{'version':1,'steps':[]}",
            "/version",
            "version must be a string, got a number"),
        refusal(
            "name not a string",
            oneStep("").replace("{'version'", "{'name':[],'version'"),
            "/name",
            "name must be a string, got an array"),
        refusal(
            "steps not an array",
            "{'version':'0.1.0','steps':{}}",
            "/steps",
            "must be an array of steps, got an object"),
        refusal("step not an object", steps("'a'"), "/steps/0", "must be an object, got a string"),
        refusal(
            "id not a string",
            steps("{'id':7," + CMD + "}"),
            "/steps/0/id",
            "id must be a string, got a number"),
        refusal(
            "dependsOn not an array",
            steps(step("a", "") + ",{'id':'b','dependsOn':'a'," + CMD + "}"),
            "/steps/1/dependsOn",
            "dependsOn must be an array of strings"),
        refusal(
            "dependsOn element not a string",
            steps(step("a", "") + "," + step("b", "1")),
            "/steps/1/dependsOn/0",
            "must be a string, got a number"),
        refusal(
            "maxIterations a string",
            oneStep(",'maxIterations':'3'"),
            "/steps/0/maxIterations",
            "must be an integer, got a string"),
        refusal(
            "retry an array",
            oneStep(",'retry':[]"),
            "/steps/0/retry",
            "must be an object, got an array"),
        refusal(
            "null is not absent",
            oneStep(",'leaseMs':null"),
            "/steps/0/leaseMs",
            "leaseMs must be an integer, got null"),
        refusal(
            "command a boolean",
            kind("'deterministic':{'command':true}"),
            "/steps/0/deterministic/command",
            "a string (run by a shell) or an array of strings"),
        refusal(
            "argv element not a string",
            kind("'deterministic':{'command':['ls',1]}"),
            "/steps/0/deterministic/command/1",
            "must be a string, got a number"),
        refusal(
            "kind body not an object",
            kind("'deterministic':'ls'"),
            "/steps/0/deterministic",
            "deterministic must be an object, got a string"),
        refusal(
            "model not a string",
            kind("'llm':{'prompt':'p','model':4}"),
            "/steps/0/llm/model",
            "model must be a string"),
        refusal(
            "instruction not an object",
            kind("'agent':{'instruction':'do it'}"),
            "/steps/0/agent/instruction",
            "instruction must be an object, got a string"),
        refusal(
            "instruction type not a string",
            kind("'agent':{'instruction':{'type':1}}"),
            "/steps/0/agent/instruction/type",
            "type must be a string"),
        refusal(
            "recoveryMode not a string",
            kind("'agent':{'instruction':{'type':'t'},'recoveryMode':0}"),
            "/steps/0/agent/recoveryMode",
            "must be a string"),
        refusal(
            "external not an array",
            kind("'agent':{'instruction':{'type':'t'},'surfaces':{'external':'/mcp/a/b'}}"),
            "/steps/0/agent/surfaces/external",
            "must be an array of strings"),
        // version and steps
        refusal(
            "unsupported version",
            "{'version':'0.2.0','steps':[{'id':'a'," + CMD + "}]}",
            "/version",
            "unsupported spec version \"0.2.0\""),
        refusal("empty step list", "{'version':'0.1.0','steps':[]}", "/steps", "no steps"),
        // step ids
        refusal(
            "id with a space",
            steps("{'id':'a b'," + CMD + "}"),
            "/steps/0/id",
            "step id \"a b\" is not 1 to 100"),
        refusal("empty id", steps("{'id':''," + CMD + "}"), "/steps/0/id", "step id \"\""),
        refusal(
            "id of 101 characters",
            steps("{'id':'" + "x".repeat(101) + "'," + CMD + "}"),
            "/steps/0/id",
            "is not 1 to 100"),
        refusal(
            "non-ASCII letter in id",
            steps("{'id':'é'," + CMD + "}"),
            "/steps/0/id",
            "is not 1 to 100"),
        refusal(
            "duplicate id points at the second",
            steps(step("a", "") + "," + step("b", "") + "," + step("a", "")),
            "/steps/2/id",
            "step id \"a\" is already used by step 0"),
        // dependencies
        refusal(
            "unknown dependency",
            steps(step("a", "") + "," + step("b", "'a','z'")),
            "/steps/1/dependsOn/1",
            "depends on \"z\", which is not a step"),
        refusal(
            "self dependency",
            steps(step("a", "'a'")),
            "/steps/0/dependsOn/0",
            "step \"a\" depends on itself"),
        refusal(
            "dependency listed twice",
            steps(step("a", "") + "," + step("b", "'a','a'")),
            "/steps/1/dependsOn/1",
            "listed twice"),
        refusal(
            "cycle is reported from its first step",
            steps(
                step("x", "")
                    + ","
                    + step("b", "'c','x'")
                    + ","
                    + step("a", "'b'")
                    + ","
                    + step("c", "'a'")),
            "/steps/1",
            "dependency cycle: \"b\" -> \"c\" -> \"a\" -> \"b\""),
        refusal(
            "a step downstream of a cycle is not blamed, and the cycle starts at its first step",
            steps(step("d", "'b'") + "," + step("a", "'b'") + "," + step("b", "'a'")),
            "/steps/1",
            "dependency cycle: \"a\" -> \"b\" -> \"a\""),
        // kinds
        refusal("no kind", steps("{'id':'a'}"), "/steps/0", "step \"a\" has no kind"),
        refusal(
            "two kinds points at the second",
            oneStep(",'llm':{'prompt':'p'}"),
            "/steps/0/llm",
            "has two kinds, \"deterministic\" and \"llm\""),
        // enums
        refusal(
            "bad recoveryMode",
            kind("'agent':{'instruction':{'type':'t'},'recoveryMode':'restart'}"),
            "/steps/0/agent/recoveryMode",
            "\"restart\" is not one of \"reset\", \"inspect\""),
        // numbers
        refusal(
            "negative initialBackoffMs",
            oneStep(",'retry':{'initialBackoffMs':-1}"),
            "/steps/0/retry/initialBackoffMs",
            "negative"),
        refusal(
            "zero maxIterations",
            oneStep(",'maxIterations':0"),
            "/steps/0/maxIterations",
            "maxIterations is 0, below 1"),
        refusal("zero leaseMs", oneStep(",'leaseMs':0"), "/steps/0/leaseMs", "leaseMs is 0"),
        refusal(
            "negative timeoutMs",
            oneStep(",'timeoutMs':-5"),
            "/steps/0/timeoutMs",
            "timeoutMs is -5, below 1"),
        refusal(
            "fractional maxIterations",
            oneStep(",'maxIterations':1.5"),
            "/steps/0/maxIterations",
            "must be a whole number, got 1.5"),
        refusal(
            "integral value written as a float",
            oneStep(",'leaseMs':2.0"),
            "/steps/0/leaseMs",
            "must be a whole number"),
        refusal(
            "maxIterations beyond int",
            oneStep(",'maxIterations':3000000000"),
            "/steps/0/maxIterations",
            "above 2147483647"),
        refusal(
            "leaseMs beyond long",
            oneStep(",'leaseMs':100000000000000000000000"),
            "/steps/0/leaseMs",
            "too large"),
        refusal(
            "maxBackoffMs below initialBackoffMs",
            oneStep(",'retry':{'initialBackoffMs':500,'maxBackoffMs':400}"),
            "/steps/0/retry/maxBackoffMs",
            "maxBackoffMs (400) is less than initialBackoffMs (500)"),
        refusal(
            "initialBackoffMs above the default maximum",
            oneStep(",'retry':{'initialBackoffMs':120000}"),
            "/steps/0/retry/initialBackoffMs",
            "maxBackoffMs (60000, the default) is less than initialBackoffMs (120000)"),
        refusal(
            "multiplier below 1",
            oneStep(",'retry':{'multiplier':0.5}"),
            "/steps/0/retry/multiplier",
            "less than 1"),
        refusal(
            "multiplier not a number",
            oneStep(",'retry':{'multiplier':'2'}"),
            "/steps/0/retry/multiplier",
            "multiplier must be a number, got a string"),
        refusal(
            "multiplier too large",
            oneStep(",'retry':{'multiplier':1e400}"),
            "/steps/0/retry/multiplier",
            "too large"),
        refusal(
            "jitterPercent above 100",
            oneStep(",'retry':{'jitterPercent':101}"),
            "/steps/0/retry/jitterPercent",
            "jitterPercent is 101, above 100"),
        refusal(
            "negative jitterPercent",
            oneStep(",'retry':{'jitterPercent':-1}"),
            "/steps/0/retry/jitterPercent",
            "negative"),
        refusal(
            "number out of range in input",
            oneStep(",'input':{'x':[1,1e400]}"),
            "/steps/0/input/x/1",
            "out of range"),
        // empty or malformed values of the right type
        refusal(
            "empty argv",
            kind("'deterministic':{'command':[]}"),
            "/steps/0/deterministic/command",
            "empty argv"),
        refusal(
            "empty argv element",
            kind("'deterministic':{'command':['ls','']}"),
            "/steps/0/deterministic/command/1",
            "argv element 1 is empty"),
        refusal(
            "blank shell command",
            kind("'deterministic':{'command':'  '}"),
            "/steps/0/deterministic/command",
            "command is blank"),
        refusal(
            "blank prompt", kind("'llm':{'prompt':''}"), "/steps/0/llm/prompt", "prompt is blank"),
        refusal(
            "blank instruction type",
            kind("'agent':{'instruction':{'type':''}}"),
            "/steps/0/agent/instruction/type",
            "type is blank"),
        refusal(
            "relative surface path",
            kind("'agent':{'instruction':{'type':'t'},'surfaces':{'external':['/a','mcp/b']}}"),
            "/steps/0/agent/surfaces/external/1",
            "does not start with \"/\""),
        refusal(
            "surface path listed twice",
            kind("'agent':{'instruction':{'type':'t'},'surfaces':{'external':['/a','/a']}}"),
            "/steps/0/agent/surfaces/external/1",
            "listed twice"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void eachBadSpecIsRefusedWithItsOwnPointerAndMessage(
      String name, String json, String pointer, String says) {
    InvalidSpecException e =
        catchThrowableOfType(InvalidSpecException.class, () -> RunSpecParser.parse(json));

    assertThat(e).as("refused: %s", json).isNotNull();
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_SPEC);
    assertThat(e.retryable()).isFalse();
    assertThat(e.pointer()).isEqualTo(pointer);
    assertThat(e.getMessage()).contains(says);
    assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).isNotBlank());
  }

  /**
   * Rows at the root pointer are about the text itself (syntax, duplicate keys, trailing text) or a
   * non-object, which the text rows cover; the rest must come out of the tree walker alike.
   */
  static Stream<Arguments> treeRefusals() {
    return refusals().filter(row -> !((String) row.get()[2]).isEmpty());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("treeRefusals")
  void theSameRefusalComesFromATreeAsFromText(String name, String json, String pointer, String says)
      throws Exception {
    JsonNode tree = RunSpecJson.MAPPER.readTree(json);
    InvalidSpecException e =
        catchThrowableOfType(InvalidSpecException.class, () -> RunSpecParser.parse(tree));
    assertThat(e).isNotNull();
    assertThat(e.pointer()).isEqualTo(pointer);
    assertThat(e.getMessage()).contains(says);
  }

  @Test
  void aHandBuiltTreeWithANonJsonValueIsRefused() {
    ObjectNode spec = RunSpecJson.write(RunSpecParser.parse(oneStep("").replace('\'', '"')));
    ((ObjectNode) spec.withArray("/steps").get(0))
        .set("input", JsonNodeFactory.instance.pojoNode(new Object()));

    InvalidSpecException e =
        catchThrowableOfType(InvalidSpecException.class, () -> RunSpecParser.parse(spec));

    assertThat(e.pointer()).isEqualTo("/steps/0/input");
    assertThat(e.getMessage()).contains("not a JSON value");
  }

  @Test
  void theRootPointerLeavesNoNarrowerPlaceInTheOneLineForm() {
    InvalidSpecException e =
        catchThrowableOfType(InvalidSpecException.class, () -> RunSpecParser.parse("nope"));

    assertThat(e.pointer()).isEmpty();
    assertThat(e.place()).isEmpty();
    assertThat(e.oneLine()).startsWith("invalid_spec: the spec is not valid JSON");
  }

  @Test
  void aSnakeCaseFieldNameIsPointedToItsCamelCaseSpelling() {
    InvalidSpecException e =
        catchThrowableOfType(
            InvalidSpecException.class,
            () -> RunSpecParser.parse(oneStep(",'max_iterations':2").replace('\'', '"')));

    assertThat(e.pointer()).isEqualTo("/steps/0/max_iterations");
    assertThat(e.fix())
        .hasValueSatisfying(f -> assertThat(f).startsWith("did you mean \"maxIterations\"?"));
  }

  @Test
  void aHugeBadValueIsCutShortInTheMessage() {
    String id = "x y".repeat(10_000);
    InvalidSpecException e =
        catchThrowableOfType(
            InvalidSpecException.class,
            () -> RunSpecParser.parse(steps("{'id':'" + id + "'," + CMD + "}").replace('\'', '"')));

    assertThat(e.pointer()).isEqualTo("/steps/0/id");
    assertThat(e.getMessage()).hasSizeLessThan(300).contains("x yx y");
  }
}
