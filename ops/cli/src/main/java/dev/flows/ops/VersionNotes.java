package dev.flows.ops;

import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.FlowVersionState;
import dev.flows.sdk.runtime.FlowVersions;
import java.util.List;
import java.util.Optional;

/**
 * What {@code flows versions} and the console's versions page say of a version besides its counts:
 * one with runs and no live worker strands them; one served with no run left, when a newer version
 * exists, can be retired (its workers stopped, or given only the newer code).
 */
final class VersionNotes {
  static final String STRANDED = "no worker serves it: its runs wait";
  static final String RETIRABLE = "can be retired";

  private VersionNotes() {}

  static boolean retirable(FlowVersionState v, List<FlowVersionState> all) {
    return v.runs() == 0
        && all.stream().anyMatch(o -> FlowVersions.newer(o.version(), v.version()));
  }

  /** The note for {@code v} among the versions {@code all} of its flow, if any. */
  static Optional<String> note(FlowVersionState v, List<FlowVersionState> all) {
    if (v.stranded()) {
      return Optional.of(STRANDED);
    }
    return retirable(v, all) ? Optional.of(RETIRABLE) : Optional.empty();
  }

  /**
   * The route as a person reads it: {@code NAME@VERSION} for a class flow, {@code source:} and the
   * first 12 digits of the hash for a single-file flow.
   */
  static String shortRoute(String route) {
    String r = route.startsWith("flow:") ? route.substring("flow:".length()) : route;
    if (r.startsWith(FlowBodyInstruction.SOURCE_ROUTE)) {
      String hash = r.substring(FlowBodyInstruction.SOURCE_ROUTE.length());
      return FlowBodyInstruction.SOURCE_ROUTE + hash.substring(0, Math.min(12, hash.length()));
    }
    return r;
  }
}
