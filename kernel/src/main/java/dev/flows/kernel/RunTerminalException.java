package dev.flows.kernel;

/** The run is already terminal (or tombstoned by an early cancel); nothing was written. */
public final class RunTerminalException extends FlowsException {
  public RunTerminalException(String message, String runId) {
    this(message, runId, "start a new run with a different id");
  }

  public RunTerminalException(String message, String runId, String fix) {
    super(ErrorCode.RUN_TERMINAL, message, runId, fix);
  }
}
