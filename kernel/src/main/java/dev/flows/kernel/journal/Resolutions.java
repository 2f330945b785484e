package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpReceipt;
import dev.flows.kernel.spec.StepSpec;

/** What resolving a parked step means, the same for every journal ({@link Journal#resolveStep}). */
public final class Resolutions {
  private Resolutions() {}

  /**
   * The output a step resolved as performed succeeds with: for an MCP call, the receipt the
   * executor would have written, built from the tool's result as given ({@link
   * McpReceipt#resolved}); for any other step, the given output. Refused {@code invalid_input}
   * (before anything is written) when an MCP call's result is not a JSON object or reports an
   * error, {@code payload_too_large} when the output is past {@code limits}' step output limit.
   */
  public static JsonNode performedOutput(
      RunRef runId, StepSpec step, JsonNode performed, PayloadLimits limits) {
    JsonNode output =
        McpReceipt.isCall(step)
            ? McpReceipt.resolved(
                step,
                Keys.idempotencyKey(runId, step.id()),
                performed,
                runId.value() + "/" + step.id())
            : performed.deepCopy();
    limits.requireResolvedOutput(output, runId.value() + "/" + step.id());
    return output;
  }

  /**
   * Whether resolving a step of a child run resumes its parent: a body parks when the child it
   * awaits parks, and nothing else would wake it once the child is resolved.
   */
  public static boolean wakesParent(RunStatus childAfter, RunStatus parent) {
    return childAfter != RunStatus.PARKED && parent == RunStatus.PARKED;
  }
}
