package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.sdk.runtime.Lowering;
import java.util.ArrayList;
import java.util.List;

/**
 * A step named by what its author wrote, read from the run's spec (how the SDK lowers each verb,
 * {@code dev.flows.sdk.runtime.Lowering}): a flow's body is {@code body}, an {@code f.mcp} call is
 * {@code mcp SERVER/TOOL}, an {@code f.command} / {@code f.shell} is {@code command ARGV} / {@code
 * shell TEXT}, a child flow's run is {@code child NAME}. A step the SDK did not write keeps its id
 * and kernel kind. One place for the text output, the JSON ({@code label}) and the console.
 */
final class StepLabel {
  /** Commands longer than this are shortened: a label names, the spec has the whole text. */
  static final int MAX_COMMAND = 60;

  private StepLabel() {}

  /** The label of step {@code stepId} of a run with {@code spec}. */
  static String of(JsonNode spec, String stepId) {
    for (JsonNode st : spec.path("steps")) {
      if (st.path("id").asText().equals(stepId)) {
        return ofStep(st);
      }
    }
    return stepId;
  }

  /**
   * A step the SDK lowered ({@code body}, {@code call}) is what it does; a step of a hand-written
   * spec keeps its id, with what it does beside it.
   */
  static String ofStep(JsonNode st) {
    String id = st.path("id").asText();
    String does = does(st);
    if (id.equals(Lowering.ROOT_STEP) || id.equals(Lowering.CALL_STEP) || does.equals(id)) {
      return does;
    }
    return id + " (" + does + ")";
  }

  private static String does(JsonNode st) {
    if (st.has("agent")) {
      JsonNode instruction = st.path("agent").path("instruction");
      return switch (instruction.path("type").asText()) {
        case FlowBodyInstruction.TYPE -> Lowering.ROOT_STEP;
        case McpCallInstruction.TYPE ->
            "mcp " + instruction.path("server").asText() + "/" + instruction.path("tool").asText();
        default -> "agent " + instruction.path("type").asText();
      };
    }
    if (st.has("deterministic")) {
      JsonNode command = st.path("deterministic").path("command");
      if (command.isTextual()) {
        return "shell " + shorten(command.asText());
      }
      List<String> argv = new ArrayList<>();
      command.forEach(a -> argv.add(a.asText()));
      return "command " + shorten(String.join(" ", argv));
    }
    return st.has("llm") ? "llm " + st.path("llm").path("model").asText() : st.path("id").asText();
  }

  /**
   * The label of a whole run: a child run of one call step is that call ({@code mcp
   * tickets/classify}, {@code command …}); a child flow is {@code child NAME}; a root run is its
   * name.
   */
  static String ofRun(JsonNode spec, String name, boolean child) {
    JsonNode steps = spec.path("steps");
    if (!child) {
      return name;
    }
    if (steps.size() == 1) {
      String step = does(steps.get(0));
      return step.equals(Lowering.ROOT_STEP) ? "child " + name : step;
    }
    return "child " + name;
  }

  private static String shorten(String s) {
    String one = Database.oneLine(s);
    return one.length() <= MAX_COMMAND ? one : one.substring(0, MAX_COMMAND) + "…";
  }
}
