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
  RUN_NOT_ENDED("run_not_ended", false),
  STEP_NOT_FOUND("step_not_found", false),
  LEASE_CONFLICT("lease_conflict", false),
  EFFECT_NOT_DECLARED("effect_not_declared", false),
  EFFECT_NOT_RECORDED("effect_not_recorded", false),
  EFFECT_UNCONFIRMED("effect_unconfirmed", false),
  EFFECT_OUTCOME_UNKNOWN("effect_outcome_unknown", false),
  INPUT_REQUIRED("input_required", false),
  APPROVAL_ANSWER_INVALID("approval_answer_invalid", false),
  TOOL_CALL_DENIED("tool_call_denied", false),
  INVALID_TRANSITION("invalid_transition", false),
  DATABASE_UNAVAILABLE("database_unavailable", true),
  DATABASE_AUTH_FAILED("database_auth_failed", false),
  DATABASE_ERROR("database_error", false),
  MIGRATION_PENDING("migration_pending", false),
  CONFIG_INVALID("config_invalid", false),
  CONFIG_NOT_FOUND("config_not_found", false),
  INVALID_INPUT("invalid_input", false),
  MCP_UNDECLARED_SERVER("mcp_undeclared_server", false),
  MCP_UNREACHABLE("mcp_unreachable", true),
  NONDETERMINISTIC_REPLAY("nondeterministic_replay", false),
  REPLAY_INCOMPATIBLE("replay_incompatible", false),
  FLOW_INVALID("flow_invalid", false),
  FLOW_NOT_FOUND("flow_not_found", false),
  FLOW_FAILED("flow_failed", false),
  DISPATCH_TIMEOUT("dispatch_timeout", true),
  RUN_CANCELED("run_canceled", false),
  RESULT_TIMEOUT("result_timeout", true),
  TIMEOUT("timeout", false),
  RETRIES_EXHAUSTED("retries_exhausted", false),
  MCP_SPAWN_FAILED("spawn_failed", false),
  MCP_HANDSHAKE_TIMEOUT("handshake_timeout", true),
  MCP_HANDSHAKE_REJECTED("handshake_rejected", false),
  MCP_AUTH_FAILED("auth_failed", false),
  MCP_DISCONNECTED("mcp_disconnected", true),
  MCP_UNKNOWN_TOOL("mcp_unknown_tool", false),
  MCP_TOOL_ERROR("mcp_tool_error", false),
  MCP_RESULT_UNAVAILABLE("mcp_result_unavailable", false),
  PAYLOAD_TOO_LARGE("payload_too_large", false),
  SECRET_KEY_MISSING("secret_key_missing", false),
  LLM_UNDECLARED_MODEL("llm_undeclared_model", false),
  LLM_ERROR("llm_error", true),
  LLM_RATE_LIMITED("llm_rate_limited", true),
  LLM_REFUSED("llm_refused", false),
  BUDGET_EXHAUSTED("budget_exhausted", false),
  SCHEDULE_NOT_FOUND("schedule_not_found", false),
  SCHEDULE_EXISTS("schedule_exists", false),
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
