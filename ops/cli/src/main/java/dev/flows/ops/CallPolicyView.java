package dev.flows.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.MemoVerb;
import java.util.Optional;

/**
 * The policy of a call as {@code runs show} shows it, read from the child's spec: attempts and
 * backoff ({@code maxIterations}, {@code retry}), {@code timeoutMs}, and for an MCP call what a
 * call of unknown outcome does and who decided it ({@code call}: its {@code onUnknownOutcome};
 * {@code annotations}: the tool's hints and flows.json) and whether it is made as a task ({@code
 * tasks}). A step with a policy ({@code f.step(name).retry(...)}) journals its policy in its memos,
 * shown with them.
 */
final class CallPolicyView {
  private CallPolicyView() {}

  /** The policy of {@code specStep} when it is a call (an MCP call or a command). */
  static Optional<ObjectNode> of(JsonNode specStep) {
    JsonNode instruction = specStep.path("agent").path("instruction");
    boolean mcp = instruction.path("type").asText().equals("mcp");
    if (!mcp && !specStep.has("deterministic")) {
      return Optional.empty();
    }
    ObjectNode p = Session.JSON.createObjectNode();
    p.put("maxAttempts", specStep.path("maxIterations").asInt());
    p.set("backoff", specStep.path("retry").deepCopy());
    if (specStep.has("timeoutMs")) {
      p.put("timeoutMs", specStep.path("timeoutMs").asLong());
    }
    if (mcp) {
      if (instruction.has("onUnknownOutcome")) {
        p.put("onUnknownOutcome", instruction.path("onUnknownOutcome").asText());
        p.put("onUnknownOutcomeBy", "call");
      } else {
        p.put(
            "onUnknownOutcome",
            instruction.path("mayReperform").asBoolean(false) ? "retry_with_key" : "park");
        p.put("onUnknownOutcomeBy", "annotations");
      }
      if (instruction.has("doNotRetry")) {
        p.set("doNotRetry", instruction.get("doNotRetry").deepCopy());
      }
      p.put("tasks", instruction.path("tasks").asText("automatic"));
    }
    return Optional.of(p);
  }

  /** One line: {@code attempts 5, backoff 100 ms x2.0 up to 60000 ms, timeout 800 ms, ...}. */
  static String text(JsonNode p) {
    JsonNode b = p.path("backoff");
    StringBuilder s =
        new StringBuilder("attempts ")
            .append(p.path("maxAttempts").asInt())
            .append(", backoff ")
            .append(b.path("initialBackoffMs").asLong())
            .append(" ms x")
            .append(b.path("multiplier").asDouble())
            .append(" up to ")
            .append(b.path("maxBackoffMs").asLong())
            .append(" ms");
    if (p.has("timeoutMs")) {
      s.append(", timeout ").append(p.path("timeoutMs").asLong()).append(" ms");
    }
    if (p.has("doNotRetry")) {
      s.append(", not retried: ").append(p.get("doNotRetry"));
    }
    if (p.has("tasks")) {
      s.append(", tasks ").append(p.path("tasks").asText());
    }
    if (p.has("onUnknownOutcome")) {
      s.append(", on unknown outcome ")
          .append(p.path("onUnknownOutcome").asText())
          .append(" (")
          .append(
              p.path("onUnknownOutcomeBy").asText().equals("call")
                  ? "the call's policy"
                  : "the tool's annotations and flows.json")
          .append(')');
    }
    return s.toString();
  }

  /**
   * A step memo's policy or failed attempt, or an attempt of a child flow call with a policy, one
   * line; empty for any other memo.
   */
  static Optional<String> memoText(JsonNode memo) {
    if (MemoVerb.of(memo).equals(Optional.of(MemoVerb.FLOW))) {
      return Optional.of(flowText(memo));
    }
    if (!memo.has("error") && !memo.has("policy")) {
      return Optional.empty();
    }
    StringBuilder b =
        new StringBuilder("f.step(\"").append(memo.path("name").asText()).append("\") ");
    if (memo.has("error")) {
      JsonNode e = memo.path("error");
      b.append("attempt ").append(memo.path("attempt").asInt()).append(" failed: ");
      b.append(e.path("code").asText(e.path("exception").asText())).append(": ");
      b.append(RunText.clip(e.path("message").asText()));
      if (memo.has("retryAt")) {
        b.append("; retry at ").append(memo.path("retryAt").asText());
      }
    } else {
      b.append("succeeded on attempt ").append(memo.path("attempts").asInt());
    }
    if (memo.has("policy")) {
      b.append("; policy ").append(memo.get("policy"));
    }
    return Optional.of(b.toString());
  }

  /** {@code f.flow("refund") attempt 2, child child_…, not before …; after flow_failed: …}. */
  private static String flowText(JsonNode memo) {
    StringBuilder b =
        new StringBuilder("f.flow(\"")
            .append(memo.path("flow").asText())
            .append("\") attempt ")
            .append(memo.path("attempt").asInt());
    if (memo.has("deadline")) {
      return b.append(" deadline ").append(memo.path("deadline").asText()).toString();
    }
    b.append(", child ").append(memo.path("child").asText());
    b.append(", not before ").append(memo.path("notBefore").asText());
    if (memo.has("after")) {
      JsonNode a = memo.path("after");
      b.append("; after ").append(a.path("code").asText()).append(": ");
      b.append(RunText.clip(a.path("message").asText()));
    }
    if (memo.has("policy")) {
      b.append("; policy ").append(memo.get("policy"));
    }
    return b.toString();
  }
}
