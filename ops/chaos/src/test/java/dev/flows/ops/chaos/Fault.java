package dev.flows.ops.chaos;

/** The faults a chaos run injects, by the name it prints. */
enum Fault {
  WORKER_SIGKILL("worker SIGKILL"),
  TERMINATE_BACKENDS("pg_terminate_backend (all)"),
  POSTGRES_RESTART("Postgres restart (immediate)"),
  MCP_SERVER_SIGKILL("MCP server SIGKILL");

  private final String label;

  Fault(String label) {
    this.label = label;
  }

  String label() {
    return label;
  }
}
