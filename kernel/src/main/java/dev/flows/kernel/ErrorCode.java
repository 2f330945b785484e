package dev.flows.kernel;

import java.util.Arrays;
import java.util.Optional;

/**
 * Every stable refusal and diagnostic code of the public contract (SURFACE.md). Wire names are
 * lower snake case and never change once published.
 */
public enum ErrorCode {
  INVALID_SPEC("invalid_spec", false),
  RUN_ADMISSION_CONFLICT("run_admission_conflict", false),
  RUN_TERMINAL("run_terminal", false),
  RUN_NOT_FOUND("run_not_found", false),
  STEP_NOT_FOUND("step_not_found", false),
  LEASE_CONFLICT("lease_conflict", false),
  EFFECT_NOT_DECLARED("effect_not_declared", false),
  EFFECT_NOT_RECORDED("effect_not_recorded", false),
  EFFECT_UNCONFIRMED("effect_unconfirmed", false),
  EFFECT_OUTCOME_UNKNOWN("effect_outcome_unknown", false),
  INVALID_TRANSITION("invalid_transition", false),
  DATABASE_UNAVAILABLE("database_unavailable", true),
  DATABASE_ERROR("database_error", false),
  MIGRATION_PENDING("migration_pending", false),
  CONFIG_INVALID("config_invalid", false),
  INVALID_INPUT("invalid_input", false),
  INTERNAL_ERROR("internal_error", false);

  private final String wire;
  private final boolean retryable;

  ErrorCode(String wire, boolean retryable) {
    this.wire = wire;
    this.retryable = retryable;
  }

  /** The stable name used in SURFACE.md, JSON output and the journal. */
  public String wire() {
    return wire;
  }

  /** Whether retrying the same request unchanged may succeed. */
  public boolean retryable() {
    return retryable;
  }

  public static Optional<ErrorCode> fromWire(String wire) {
    return Arrays.stream(values()).filter(c -> c.wire.equals(wire)).findFirst();
  }
}
