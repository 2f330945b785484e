package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.lifecycle.RunStatus;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules of signals both journals share: which names and keys are accepted, and what a delivered
 * signal journals as the output of the effect it is delivered at.
 */
public final class Signals {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}");
  static final int MAX_KEY = 200;

  private Signals() {}

  /** Refuses {@code invalid_input} a name or key a signal cannot have. */
  public static void check(String name, Optional<String> key) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "signal name '" + name + "' is not 1-100 letters, digits or _.:- (first a letter/digit)",
          "signal " + name,
          "name the signal as the body's f.awaitSignal does, e.g. approve");
    }
    if (key.isPresent() && (key.get().isEmpty() || key.get().length() > MAX_KEY)) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "a signal key must be 1-" + MAX_KEY + " characters",
          "signal " + name,
          "pass a shorter key, or none");
    }
  }

  /**
   * The refusal of a signal to a run that has ended (or was tombstoned, {@code canceled}): nothing
   * would ever take it. A keyed signal sent before the run ended is answered {@code deduped} first.
   */
  public static RunTerminalException ended(RunRef runId, RunStatus status) {
    return new RunTerminalException(
        "run "
            + runId.value()
            + " has already ended ("
            + status.wire()
            + "): a signal is delivered only to a run that has not ended",
        runId.value(),
        "check the run id (`flows runs show "
            + runId.value()
            + "`); to act on a new run, start one (`flows runs rerun "
            + runId.value()
            + "`) and signal it");
  }

  /** What the effect a signal is delivered at journals: its name, number and payload. */
  public static ObjectNode delivered(String name, long seq, JsonNode payload) {
    ObjectNode o = JSON.objectNode().put("signal", name);
    // As a parser reads it back from stored JSON (an int when it fits), so both compare equal.
    if (seq <= Integer.MAX_VALUE) {
      o.put("seq", (int) seq);
    } else {
      o.put("seq", seq);
    }
    o.set("payload", payload == null ? JSON.nullNode() : payload.deepCopy());
    return o;
  }
}
