package dev.flows.kernel.mcp;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@code tools/call} made with {@link CallOptions} came back as: the tool's result, a task
 * the server created for it (poll it with {@link McpTransportPort#getTask}), or a request for input
 * the caller answers by re-issuing the call ({@link CallOptions#answering}).
 */
public sealed interface ToolCallOutcome {

  /** The server answered with the tool's result, as {@link McpTransportPort#callTool} does. */
  record Completed(ToolCallResult result) implements ToolCallOutcome {
    public Completed {
      Objects.requireNonNull(result, "result");
    }
  }

  /**
   * The server created a task and answered with its handle before running it; {@code task.state()}
   * is the seed state (usually working).
   */
  record TaskCreated(McpTask task, List<ToolCallResult.WireAttempt> wireAttempts)
      implements ToolCallOutcome {
    public TaskCreated {
      Objects.requireNonNull(task, "task");
      wireAttempts = List.copyOf(wireAttempts);
    }
  }

  /**
   * 2026-07-28 multi round-trip request: the server needs {@code requests} answered (keyed as the
   * server named them) before it can complete the call, and {@code requestState} (opaque) must be
   * echoed exactly when the call is re-issued with the answers.
   */
  record InputRequired(
      String server,
      String tool,
      Map<String, InputRequest> requests,
      Optional<String> requestState,
      String protocolVersion,
      List<ToolCallResult.WireAttempt> wireAttempts)
      implements ToolCallOutcome {
    public InputRequired {
      Objects.requireNonNull(server, "server");
      Objects.requireNonNull(tool, "tool");
      requests = Map.copyOf(requests);
      Objects.requireNonNull(requestState, "requestState");
      Objects.requireNonNull(protocolVersion, "protocolVersion");
      wireAttempts = List.copyOf(wireAttempts);
    }
  }
}
