package dev.flows.embed;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.sdk.RunId;
import dev.flows.sdk.runtime.PublicError;
import java.util.List;
import java.util.Objects;

/**
 * Which runs {@link Flows#upgrade} moves: {@link #runs(RunId...)} by id, or {@link
 * #fromVersion(String)}, every root run of the flow not ended whose body is at that version.
 */
public sealed interface UpgradeRuns {
  /** These runs. */
  static UpgradeRuns runs(RunId... ids) {
    return new Ids(List.of(ids));
  }

  /**
   * Every root run of the target's flow name that has not ended and whose body is at {@code
   * version} (the version it started with, or the last it was moved to), oldest first.
   */
  static UpgradeRuns fromVersion(String version) {
    return new FromVersion(version);
  }

  /** See {@link #runs(RunId...)}. */
  record Ids(List<RunId> ids) implements UpgradeRuns {
    public Ids {
      ids = List.copyOf(ids);
    }
  }

  /** See {@link #fromVersion(String)}; a blank version: {@code invalid_input}. */
  record FromVersion(String version) implements UpgradeRuns {
    public FromVersion {
      Objects.requireNonNull(version, "version");
      if (version.isBlank()) {
        throw PublicError.of(
            new FlowsException(
                ErrorCode.INVALID_INPUT,
                "a flow version must not be blank",
                "UpgradeRuns.fromVersion",
                "give the version the runs' flow header declared"));
      }
    }
  }
}
