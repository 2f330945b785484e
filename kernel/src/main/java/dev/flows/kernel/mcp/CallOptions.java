package dev.flows.kernel.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link McpTransportPort#call} makes a call. {@code tasks}: whether the call may or must be
 * made as a task. {@code durableInput}: an {@code input_required} answer (2026-07-28) is returned
 * to the caller instead of being answered by the client. {@code reissue}: as for {@link
 * McpTransportPort#callTool(String, java.util.Map, java.util.Map, boolean)}. {@code answer}: the
 * call re-issues an earlier one that was answered {@code input_required}, with these responses and
 * that answer's {@code requestState} echoed exactly (the caller passes the same {@code _meta}, so
 * the same idempotency key). {@code liveInput}: answers what a 2025 server asks during the call
 * ({@code elicitation/create}); a durable call without one has such requests declined.
 */
public record CallOptions(
    TaskMode tasks,
    boolean durableInput,
    boolean reissue,
    Optional<Answer> answer,
    Optional<LiveInput> liveInput) {

  /** Today's behaviour: no task, input answered by the client (or refused). */
  public static final CallOptions PLAIN =
      new CallOptions(TaskMode.FORBIDDEN, false, false, Optional.empty(), Optional.empty());

  public CallOptions {
    Objects.requireNonNull(tasks, "tasks");
    Objects.requireNonNull(answer, "answer");
    Objects.requireNonNull(liveInput, "liveInput");
  }

  public CallOptions(
      TaskMode tasks, boolean durableInput, boolean reissue, Optional<Answer> answer) {
    this(tasks, durableInput, reissue, answer, Optional.empty());
  }

  public CallOptions withTasks(TaskMode mode) {
    return new CallOptions(mode, durableInput, reissue, answer, liveInput);
  }

  public CallOptions withDurableInput() {
    return new CallOptions(tasks, true, reissue, answer, liveInput);
  }

  public CallOptions withReissue(boolean may) {
    return new CallOptions(tasks, durableInput, may, answer, liveInput);
  }

  /** Re-issues a call answered {@code input_required}: durable input stays on. */
  public CallOptions answering(
      Map<String, JsonNode> inputResponses, Optional<String> requestState) {
    return new CallOptions(
        tasks, true, reissue, Optional.of(new Answer(inputResponses, requestState)), liveInput);
  }

  /** What a 2025 server asks during the call is answered by {@code live}. */
  public CallOptions withLiveInput(LiveInput live) {
    return new CallOptions(
        tasks, durableInput, reissue, answer, Optional.of(Objects.requireNonNull(live, "live")));
  }

  /** True when nothing beyond {@link McpTransportPort#callTool} is asked. */
  public boolean plain() {
    return tasks == TaskMode.FORBIDDEN && !durableInput && answer.isEmpty();
  }

  /**
   * Whether a call is made as a task. 2026-07-28: the server decides per call when the client
   * declares the extension; {@code AUTOMATIC} declares it when the server does, {@code REQUIRED}
   * refuses the call when the server does not, {@code FORBIDDEN} never declares it. 2025-11-25
   * (experimental tasks): the call is task-augmented when the server declares {@code
   * tasks.requests.tools.call} and the tool's {@code execution.taskSupport} is {@code optional}
   * ({@code AUTOMATIC}, {@code REQUIRED}) or {@code required} (any mode but {@code FORBIDDEN});
   * {@code REQUIRED} refuses the call otherwise.
   */
  public enum TaskMode {
    FORBIDDEN,
    AUTOMATIC,
    REQUIRED
  }

  /**
   * The answers of a re-issued call and the {@code requestState} to echo (empty: none was sent).
   */
  public record Answer(Map<String, JsonNode> inputResponses, Optional<String> requestState) {
    public Answer {
      inputResponses = Map.copyOf(inputResponses);
      Objects.requireNonNull(requestState, "requestState");
    }
  }
}
