package dev.flows.ops;

import dev.flows.kernel.ErrorCode;
import java.util.Set;

/** The exit codes of every {@code flows} command (SURFACE.md, "CLI"). */
final class Exit {
  static final int SUCCESS = 0;

  /** The run failed, or the command could not do its job (database unreachable, internal). */
  static final int FAILED = 1;

  /** Refused: bad input, found wrong before anything was written. */
  static final int REFUSED = 2;

  /** The run is parked, waiting for an operator. */
  static final int PARKED = 3;

  /**
   * Failures of the environment rather than of the request: the same command may succeed later.
   * Every other code is a refusal of the request itself.
   */
  private static final Set<ErrorCode> ENVIRONMENT =
      Set.of(ErrorCode.DATABASE_UNAVAILABLE, ErrorCode.DATABASE_ERROR, ErrorCode.INTERNAL_ERROR);

  private Exit() {}

  static int forCode(ErrorCode code) {
    return ENVIRONMENT.contains(code) ? FAILED : REFUSED;
  }
}
