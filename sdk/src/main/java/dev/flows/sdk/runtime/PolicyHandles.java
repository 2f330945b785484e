package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.McpResult;
import dev.flows.sdk.RetryPolicy;
import dev.flows.sdk.UnknownOutcome;
import java.time.Duration;
import java.util.List;

/**
 * The call handles of {@code f.mcp(s).tool(t)}, {@code f.step(name)} and {@code f.command} / {@code
 * f.shell}: each carries its {@link CallPolicy}, and each policy method answers a new handle, so a
 * handle kept in a field can be reused with different policies.
 */
final class PolicyHandles {
  private PolicyHandles() {}

  /** Makes an MCP call with a policy. */
  @FunctionalInterface
  interface McpCaller {
    McpResult call(String server, String tool, Object arguments, CallPolicy policy);
  }

  /** Runs a step with a policy. */
  interface StepRunner {
    JsonNode run(String name, CallPolicy policy, Ctx.StepBody<?> body);

    <T> T run(String name, CallPolicy policy, Class<T> type, Ctx.StepBody<T> body);
  }

  /** Runs a command with a policy. */
  @FunctionalInterface
  interface CommandRunner {
    JsonNode run(List<String> argv, boolean shell, CallPolicy policy);
  }

  record Tool(String server, String tool, CallPolicy policy, McpCaller caller)
      implements Ctx.McpTool {
    @Override
    public McpResult call(Object arguments) {
      return caller.call(server, tool, arguments, policy);
    }

    @Override
    public Ctx.McpTool timeout(Duration timeout) {
      return new Tool(server, tool, policy.withTimeout(timeout), caller);
    }

    @Override
    public Ctx.McpTool retry(RetryPolicy retry) {
      return new Tool(server, tool, policy.withRetry(retry), caller);
    }

    @Override
    public Ctx.McpTool onUnknownOutcome(UnknownOutcome decision) {
      return new Tool(server, tool, policy.withOnUnknownOutcome(decision), caller);
    }
  }

  record Step(String name, CallPolicy policy, StepRunner runner) implements Ctx.StepCall {
    @Override
    public Ctx.StepCall retry(RetryPolicy retry) {
      return new Step(name, policy.withRetry(retry), runner);
    }

    @Override
    public Ctx.StepCall timeout(Duration timeout) {
      return new Step(name, policy.withTimeout(timeout), runner);
    }

    @Override
    public JsonNode call(Ctx.StepBody<?> body) {
      return runner.run(name, policy, body);
    }

    @Override
    public <T> T call(Class<T> type, Ctx.StepBody<T> body) {
      return runner.run(name, policy, type, body);
    }
  }

  record Command(List<String> argv, boolean shell, CallPolicy policy, CommandRunner runner)
      implements Ctx.Command {
    Command {
      argv = List.copyOf(argv);
    }

    @Override
    public Ctx.Command timeout(Duration timeout) {
      return new Command(argv, shell, policy.withTimeout(timeout), runner);
    }

    @Override
    public Ctx.Command retry(RetryPolicy retry) {
      return new Command(argv, shell, policy.withRetry(retry), runner);
    }

    @Override
    public JsonNode call() {
      return runner.run(argv, shell, policy);
    }
  }
}
