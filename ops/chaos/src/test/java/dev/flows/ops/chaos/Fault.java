package dev.flows.ops.chaos;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/** The faults a chaos run injects, by the name it prints and the name {@code --faults} takes. */
enum Fault {
  WORKER_SIGKILL("worker SIGKILL", "worker-sigkill"),
  TERMINATE_BACKENDS("pg_terminate_backend (all)", "terminate-backends"),
  POSTGRES_RESTART("Postgres restart (immediate)", "postgres-restart"),
  MCP_SERVER_SIGKILL("MCP server SIGKILL", "mcp-server-sigkill"),
  /**
   * SIGKILL of the worker that owns a task-backed call in flight: its task created and journaled,
   * not yet completed. The owner is the worker holding the call's attempt, else the worker of its
   * latest attempt (the one that created the task or polled it last).
   */
  TASK_CALL_WORKER_SIGKILL("worker SIGKILL during a task-backed call", "task-sigkill");

  private final String label;
  private final String flag;

  Fault(String label, String flag) {
    this.label = label;
    this.flag = flag;
  }

  String label() {
    return label;
  }

  String flag() {
    return flag;
  }

  /** The names {@code --faults} takes, comma-separated. */
  static String flags() {
    return Arrays.stream(values()).map(Fault::flag).collect(Collectors.joining(","));
  }

  /** {@code --faults a,b}: the kinds named; an unknown name is refused with the known ones. */
  static Set<Fault> parse(String list) {
    Set<Fault> out = EnumSet.noneOf(Fault.class);
    for (String name : list.split(",", -1)) {
      Fault f =
          Arrays.stream(values())
              .filter(v -> v.flag.equals(name.trim()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "unknown fault '" + name.trim() + "' (known: " + flags() + ")"));
      out.add(f);
    }
    return out;
  }
}
