package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.keys.SecretMarks;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.McpResult;
import dev.flows.sdk.Pending;
import dev.flows.sdk.RetryPolicy;
import dev.flows.sdk.UnknownOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The call handles of {@code f.mcp(s).tool(t)}, {@code f.step(name)} and {@code f.command} / {@code
 * f.shell}: each carries its {@link CallPolicy}, and each policy method answers a new handle, so a
 * handle kept in a field can be reused with different policies.
 */
final class PolicyHandles {
  private PolicyHandles() {}

  /** Runs a step with a policy. */
  interface StepRunner {
    JsonNode run(String name, CallPolicy policy, Ctx.StepBody<?> body);

    <T> T run(String name, CallPolicy policy, Class<T> type, Ctx.StepBody<T> body);
  }

  /** {@code f.mcp(server).tool(tool)}: each call takes its own position. */
  record Tool(
      DurableCtx ctx,
      String server,
      String tool,
      CallPolicy policy,
      Optional<Ctx.InputHandler> onInput,
      boolean approval,
      SecretMarks secrets)
      implements Ctx.McpTool {
    @Override
    public McpResult call(Object arguments) {
      return PublicError.guard(() -> ctx.callMcp(this, arguments));
    }

    @Override
    public Pending<McpResult> callAsync(Object arguments) {
      return PublicError.guard(() -> ctx.callMcpAsync(this, arguments));
    }

    @Override
    public Ctx.McpTool timeout(Duration timeout) {
      return new Tool(ctx, server, tool, policy.withTimeout(timeout), onInput, approval, secrets);
    }

    @Override
    public Ctx.McpTool retry(RetryPolicy retry) {
      return new Tool(ctx, server, tool, policy.withRetry(retry), onInput, approval, secrets);
    }

    @Override
    public Ctx.McpTool onUnknownOutcome(UnknownOutcome decision) {
      return new Tool(
          ctx, server, tool, policy.withOnUnknownOutcome(decision), onInput, approval, secrets);
    }

    @Override
    public Ctx.McpTool onInput(Ctx.InputHandler handler) {
      if (handler == null) {
        throw new dev.flows.sdk.FlowsError(
            dev.flows.kernel.ErrorCode.INVALID_INPUT.wire(),
            "onInput needs a handler, got null",
            "f.mcp(\"" + server + "\").tool(\"" + tool + "\")",
            "pass a lambda answering InputReply.accept(...) or InputReply.decline()",
            false,
            null);
      }
      return new Tool(ctx, server, tool, policy, Optional.of(handler), approval, secrets);
    }

    @Override
    public Ctx.McpTool needsApproval() {
      return new Tool(ctx, server, tool, policy, onInput, true, secrets);
    }

    @Override
    public Ctx.McpTool secret(String pointer) {
      return PublicError.guard(
          () ->
              new Tool(
                  ctx,
                  server,
                  tool,
                  policy,
                  onInput,
                  approval,
                  secrets.argument(pointer, place())));
    }

    @Override
    public Ctx.McpTool secretResult(String pointer) {
      return PublicError.guard(
          () ->
              new Tool(
                  ctx,
                  server,
                  tool,
                  policy,
                  onInput,
                  approval,
                  secrets.resultPart(pointer, place())));
    }

    private String place() {
      return "f.mcp(\"" + server + "\").tool(\"" + tool + "\")";
    }

    @Override
    public Ctx.McpTool tasks(dev.flows.sdk.TaskUse use) {
      return new Tool(ctx, server, tool, policy.withTasks(use), onInput, approval, secrets);
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
      return PublicError.guard(() -> runner.run(name, policy, body));
    }

    @Override
    public <T> T call(Class<T> type, Ctx.StepBody<T> body) {
      return PublicError.guard(() -> runner.run(name, policy, type, body));
    }
  }

  record Command(DurableCtx ctx, List<String> argv, boolean shell, CallPolicy policy)
      implements Ctx.Command {
    Command {
      argv = List.copyOf(argv);
    }

    @Override
    public Ctx.Command timeout(Duration timeout) {
      return new Command(ctx, argv, shell, policy.withTimeout(timeout));
    }

    @Override
    public Ctx.Command retry(RetryPolicy retry) {
      return new Command(ctx, argv, shell, policy.withRetry(retry));
    }

    @Override
    public JsonNode call() {
      return PublicError.guard(() -> ctx.runCommand(argv, shell, policy));
    }

    @Override
    public Pending<JsonNode> callAsync() {
      return PublicError.guard(() -> ctx.runCommandAsync(argv, shell, policy));
    }
  }
}
