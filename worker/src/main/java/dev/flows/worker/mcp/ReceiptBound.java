package dev.flows.worker.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.McpCallInstruction;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpServerConfigJson;
import java.util.Optional;

/**
 * The largest receipt a call may journal: the worker's {@code maxReceiptBytes}, raised to the
 * server's own flows.json {@code limits.maxResultBytes} when that is larger (a server allowed
 * larger answers is allowed receipts as large). A receipt past it fails the call {@code
 * payload_too_large} before it is confirmed, as an answer cut off while it streamed does: the tool
 * ran, nothing of its answer is journaled, and the step is not retried.
 *
 * @param workerBytes the worker's {@link PayloadLimits#maxReceiptBytes}
 */
public record ReceiptBound(long workerBytes) {

  /** The bound of the defaults. */
  public static final ReceiptBound DEFAULT =
      new ReceiptBound(PayloadLimits.DEFAULTS.maxReceiptBytes());

  /** The bound for a call to the server {@code in} names. */
  long of(McpCallInstruction in) {
    return McpServerConfigJson.read(in.connection()).maxResultBytes().stream()
        .mapToLong(own -> Math.max(own, workerBytes))
        .findFirst()
        .orElse(workerBytes);
  }

  /** The failed outcome of a call whose {@code receipt} is past its bound; empty when it fits. */
  Optional<StepOutcome> refuse(McpCallInstruction in, String key, JsonNode receipt) {
    try {
      PayloadLimits.requireReceipt(receipt, of(in), in.surface());
      return Optional.empty();
    } catch (FlowsException tooLarge) {
      return Optional.of(
          McpCallTails.failed(
              in,
              key,
              McpDiagnostic.PAYLOAD_TOO_LARGE.wire(),
              false,
              tooLarge.getMessage() + "; " + tooLarge.fix().orElse("")));
    }
  }
}
