package dev.flows.worker;

/**
 * The closed set of diagnostics the worker writes into a trajectory tail ({@code "diagnostic"}).
 * Wire names are stable (SURFACE.md, Worker).
 */
public enum WorkerDiagnostic {
  /** The command exited with a non-zero status. */
  EXIT_NONZERO("exit_nonzero"),
  /** The command outlived its {@code timeoutMs}; its process group was terminated. */
  TIMEOUT("timeout"),
  /** The attempt was canceled (lease lost, renewal failure, worker stop); see {@code cause}. */
  CANCELED("canceled"),
  /** The command could not be started (no such program, permissions). */
  SPAWN_FAILED("spawn_failed"),
  /** The step's working directory ({@code cwd}, a flow file's directory) is not on this worker. */
  CWD_NOT_FOUND("cwd_not_found"),
  /** No executor on this worker serves the agent instruction's {@code type}. */
  UNKNOWN_INSTRUCTION_TYPE("unknown_instruction_type"),
  /** No executor on this worker serves the step's kind. */
  NO_EXECUTOR("no_executor"),
  /** The executor threw instead of answering an outcome. */
  EXECUTOR_FAILED("executor_failed"),
  /** A lease renewal failed with an error other than a lease refusal. */
  RENEWAL_FAILED("renewal_failed");

  private final String wire;

  WorkerDiagnostic(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }
}
