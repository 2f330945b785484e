package dev.flows.kernel.mcp;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A task a server created for a call (2026-07-28 tasks extension {@code
 * io.modelcontextprotocol/tasks}, or the experimental tasks of 2025-11-25), as last seen: its
 * server-minted id, its state, and the server's hints. {@code pollInterval} is how often the server
 * asks to be polled, {@code ttl} how long after creation it may forget the task (empty: unlimited
 * or not said). {@code protocolVersion} is the revision the task was created in, which decides how
 * it is polled.
 */
public record McpTask(
    String server,
    String tool,
    String taskId,
    State state,
    Optional<String> statusMessage,
    Optional<Duration> pollInterval,
    Optional<Duration> ttl,
    String protocolVersion) {

  public McpTask {
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(statusMessage, "statusMessage");
    Objects.requireNonNull(pollInterval, "pollInterval");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(protocolVersion, "protocolVersion");
  }

  /** The status as the protocol names it. */
  public String status() {
    return switch (state) {
      case State.Working w -> "working";
      case State.InputRequired i -> "input_required";
      case State.Completed c -> "completed";
      case State.Failed f -> "failed";
      case State.Cancelled c -> "cancelled";
    };
  }

  /** True for completed, failed and cancelled: the task never changes again. */
  public boolean terminal() {
    return switch (state) {
      case State.Working w -> false;
      case State.InputRequired i -> false;
      case State.Completed c -> true;
      case State.Failed f -> true;
      case State.Cancelled c -> true;
    };
  }

  /** A task's status, with what each status carries. */
  public sealed interface State {
    record Working() implements State {}

    /**
     * The server waits for {@code requests} to be answered with {@link
     * McpTransportPort#updateTask}; empty when only the creation answer was seen (2026-07-28
     * servers list them in {@code tasks/get}).
     */
    record InputRequired(Map<String, InputRequest> requests) implements State {
      public InputRequired {
        requests = Map.copyOf(requests);
      }
    }

    /** The call's result (a tool-reported error is still a result). */
    record Completed(ToolCallResult result) implements State {
      public Completed {
        Objects.requireNonNull(result, "result");
      }
    }

    /** The call failed with a JSON-RPC error while the task ran. */
    record Failed(int code, String message) implements State {
      public Failed {
        Objects.requireNonNull(message, "message");
      }
    }

    record Cancelled() implements State {}
  }
}
