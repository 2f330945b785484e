package dev.flows.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The context a flow body works through. Every call here is journaled: on replay it answers from
 * the journal instead of doing the work again.
 */
public interface Ctx {
  /** The root run this body belongs to. */
  RunId runId();

  /** The flow's input as given at start, as JSON (the body's typed input was read from it). */
  JsonNode input();

  /**
   * A server the header declares in {@code tools.mcp}. Naming an undeclared server fails with
   * {@code mcp_undeclared_server} ({@code flows check} finds it before anything runs).
   */
  McpServer mcp(String server);

  /**
   * A call to a model the header declares ({@code .models("fast")}), declared under {@code models}
   * in flows.json or given in code: {@code f.llm("fast").user(text).call().text()}. Naming an
   * undeclared model fails {@code llm_undeclared_model}.
   */
  LlmCall<String> llm(String model);

  /**
   * An agent on a model the header declares: a durable loop in which the model calls the flow's MCP
   * tools, {@code f.agent("smart").instructions(text).tools("tickets").run(ticket)}. Naming an
   * undeclared model fails {@code llm_undeclared_model}, a tool server the header does not declare
   * {@code mcp_undeclared_server}, a tool its inventory lacks {@code mcp_unknown_tool}.
   */
  AgentCall<String> agent(String model);

  /**
   * A memoized in-process step: {@code body} runs once, its JSON result is journaled, and a replay
   * returns the journaled result without running it.
   */
  JsonNode step(String name, StepBody<?> body);

  /** As {@link #step(String, StepBody)}, converting the result to {@code type}. */
  <T> T step(String name, Class<T> type, StepBody<T> body);

  /**
   * A memoized step with a policy: {@code f.step("charge").retry(p).timeout(d).call(body)}. A
   * failed attempt (the body threw, or outlived the timeout: {@code timeout}) is journaled and,
   * when the policy retries it, run again after the backoff; when none is left the call fails
   * {@code retries_exhausted} carrying the last failure. Without {@code .retry} a failure is final,
   * as for {@link #step(String, StepBody)}.
   */
  StepCall step(String name);

  /**
   * A command run as a deterministic child run of this one, {@code argv} executed with no shell:
   * {@code f.command("scripts/notify.sh", id).call()}, or with a policy, {@code
   * f.command(argv).timeout(d).retry(p).call()}; {@code callAsync()} does not wait. It answers
   * {@code {"exitCode", "stdout", "stderr"}}; a non-zero exit fails the call.
   */
  Command command(String... argv);

  /** As {@link #command}, {@code command} run with {@code /bin/sh -c}. */
  Command shell(String command);

  /**
   * Waits until every one of {@code pending} ended, then throws the failure of the first that
   * failed, in argument order (a {@link ChildFailedException}). While it waits past {@code
   * suspendAfter} the body gives its attempt back, awaiting all of them, and is replayed when they
   * ended. Writes nothing to the journal. Answers the results in argument order.
   */
  List<Object> all(Pending<?>... pending);

  /** As {@link #all(Pending...)} for pending results of one type. */
  <T> List<T> all(List<? extends Pending<T>> pending);

  /**
   * Waits until one of {@code pending} ended and answers it (the very object passed in, so {@code
   * f.any(a, b) == a} tells which). Which one won is journaled (a memo {@code
   * {"verb":"f.any","of":[positions],"winner":index}} at the call's position), so a replay answers
   * the same one whatever ended since. Its {@link Pending#get} answers the result or throws the
   * failure.
   */
  Pending<?> any(Pending<?>... pending);

  /** As {@link #any(Pending...)} for pending results of one type. */
  <T> Pending<T> any(List<? extends Pending<T>> pending);

  /**
   * Another flow, to run as a child of this one: a {@code NAME.flow.java} beside this flow's file,
   * a flow class registered with the worker under that name, or a {@code NAME.flow.java} under the
   * worker's {@code --flows} directories, in that order.
   *
   * <p>Its input is anything Jackson turns into JSON; its output is answered as JSON. Fails {@code
   * flow_not_found} when there is none of them.
   */
  FlowCall<Object, JsonNode> flow(String name);

  /**
   * A flow class (with a public no-argument constructor), to run as a child of this one: {@code
   * Refunded r = f.flow(Refund.class).call(new RefundRequest(...))}.
   */
  <I, O> FlowCall<I, O> flow(Class<? extends Flow<I, O>> type);

  /**
   * A durable timer: the body waits {@code duration} and goes on. It holds no thread, lease or
   * memory meanwhile: its attempt is given back and its step is claimable again at the due time,
   * which is journaled at the first call, so a replay after the timer fired does not sleep again
   * and a timer due while no worker runs fires when one starts. The body is replayed from the top
   * at the due time (or a little after, never before). Journal: a memo {@code
   * {"verb":"f.sleep","until":...}} at the call's position.
   *
   * <p>Fails {@code invalid_input} for a negative duration.
   */
  void sleep(Duration duration);

  /** As {@link #sleep(Duration)}, until {@code until} (at once when it has passed). */
  void sleepUntil(Instant until);

  /**
   * Waits for a signal named {@code name} sent to this run ({@code flows runs signal}, {@code
   * RunHandle.signal}, {@code flows.send_signal} in SQL, or {@code Journal.sendSignal}) and answers
   * its JSON payload; empty when none came within {@code timeout}, so the body decides. Signals
   * sent before the body waits are kept (a mailbox per run and name), delivered in the order sent,
   * each once. The timeout is judged against the due time journaled at the first wait, and a
   * timeout is journaled too, so a replay answers as the first run did. While waiting the body
   * holds no thread, lease or memory; a send readies it at once. Journal: a memo {@code
   * {"verb":"f.awaitSignal","signal":name,"until":...}} at the call's position, and its outcome at
   * {@code /memo/<position>/outcome}: {@code {"signal","seq","payload"}} or {@code
   * {"signal","timeout":true}}.
   *
   * <p>Fails {@code invalid_input} for a bad name or a timeout that is not positive.
   */
  Optional<JsonNode> awaitSignal(String name, Duration timeout);

  /**
   * As {@link #awaitSignal(String, Duration)}, the payload read as a {@code type} (a payload that
   * does not fit fails {@code invalid_input}): {@code f.awaitSignal("approve", Approval.class,
   * Duration.ofHours(24))}.
   */
  <T> Optional<T> awaitSignal(String name, Class<T> type, Duration timeout);

  /**
   * The time, journaled on first use (a memo {@code {"verb":"f.now","value":...}}) and answered
   * from the journal on replay: use it instead of {@code Instant.now()} in a body.
   */
  Instant now();

  /** A random UUID, journaled on first use and answered from the journal on replay. */
  UUID randomUUID();

  /** A random double in [0, 1), journaled on first use and answered from the journal on replay. */
  double random();

  /**
   * Whether this run takes the code behind patch {@code id}, so a changed body can go on serving
   * the runs started on the code before it: true for a run that reaches this point on code that has
   * the patch (journaled as a memo {@code {"verb":"f.patched","patch":id}} at the call's position,
   * and answered from it on replay), false for a run whose journal shows it passed this point on
   * older code (the position holds another call; nothing is journaled and no position is taken).
   * {@code if (f.patched("triage-v2")) { new step } } keeps old runs on the old path.
   */
  boolean patched(String id);

  /**
   * The cleanup of {@link #patched}: once no run on the code before patch {@code id} is left, the
   * patch's {@code if} is replaced by this call and the new code kept. A run that journaled the
   * patch here goes past its memo; any other run takes no position and nothing is journaled.
   */
  void deprecatePatch(String id);

  /** A server handle: {@code f.mcp("stripe").tool("create_customer").call(args)}. */
  interface McpServer {
    McpTool tool(String name);
  }

  /** A tool handle; immutable: each policy method answers a new handle. */
  interface McpTool {
    /**
     * Calls the tool as a durable effect and returns its result. {@code arguments} is a JSON object
     * or anything Jackson turns into one (a Map, a record).
     */
    McpResult call(Object arguments);

    /**
     * As {@link #call}, without waiting: the call is issued now (its position taken, its child run
     * admitted, performed at once by this worker where a first call is) and runs while the body
     * goes on, so several calls are in flight at once.
     */
    Pending<McpResult> callAsync(Object arguments);

    /**
     * The call fails {@code timeout} when no result came within {@code timeout}; the request is
     * cancelled on the wire ({@code notifications/cancelled}). Retried only under an explicit
     * {@link #retry} policy that does not name {@code timeout}.
     */
    McpTool timeout(java.time.Duration timeout);

    /** Attempts and backoff of the call's child step; {@code doNotRetry} names diagnostics. */
    McpTool retry(RetryPolicy policy);

    /** What a call of unknown outcome does, overriding the annotations and flows.json. */
    McpTool onUnknownOutcome(UnknownOutcome decision);

    /**
     * Whether the call is made as a task (the server keeps it and flows polls it by id), overriding
     * the server's flows.json {@code tasks}; {@link TaskUse#AUTOMATIC} when neither says.
     */
    McpTool tasks(TaskUse use);

    /**
     * The body answers the server's requests for input itself, for inputs it can compute. A call
     * the server answers {@code input_required} parks its step (whichever worker made it); the
     * body, waiting on the call, asks {@code handler} once for each request of the round, journals
     * the answer (a memo at {@code /memo/<position>/input/<round>}, so a replay never asks again)
     * and answers the parked step as an operator would ({@code by} {@code onInput}); the call is
     * then re-issued with the answers and the {@code requestState} echoed, same idempotency key. A
     * handler that throws, or answers what the requested schema refuses, leaves the call parked for
     * an operator ({@code flows runs answer}); the body's park says why. A 2025 server's live
     * {@code elicitation/create} during a call made in this body's process while it waits is
     * answered the same way (journaled at {@code /memo/<position>/input/live-<n>}); any other is
     * declined at once, since a session-bound request cannot survive a crash. The handler does not
     * change the call's spec.
     */
    McpTool onInput(InputHandler handler);

    /**
     * The call waits for a person's approval before it is sent: its step parks {@code
     * input_required} with the arguments (nothing recorded, nothing sent), and {@code flows runs
     * answer RUN STEP '{"approve":true}'} | {@code '{"deny":"reason"}'} | {@code '{"args":{…}}'}
     * (edited arguments, then sent) decides; a denied call fails {@code tool_call_denied}.
     */
    McpTool needsApproval();

    /**
     * Marks the argument at JSON pointer {@code pointer} (RFC 6901, e.g. {@code /card/number})
     * secret, beside those flows.json marks for the tool: it is journaled only sealed (AES-256-GCM
     * under the key named by flows.json's {@code secrets.keyEnv}), shown as {@code "***"} and
     * opened only to make the call. A pointer that is not one is refused {@code invalid_input}; a
     * secret to seal without a key fails the call {@code secret_key_missing} before anything is
     * journaled.
     */
    McpTool secret(String pointer);

    /**
     * Marks the part of the tool's result at {@code pointer} (into {@code {content,
     * structuredContent, isError}}, e.g. {@code /content/0/text}) secret: the worker seals it
     * before anything of the answer is journaled; this body's {@link McpResult} holds it opened.
     */
    McpTool secretResult(String pointer);
  }

  /** Answers one request a server made for input during a call (see {@link McpTool#onInput}). */
  @FunctionalInterface
  interface InputHandler {
    InputReply answer(InputPrompt request) throws Exception;
  }

  /** A step handle with a policy; immutable: each policy method answers a new handle. */
  interface StepCall {
    StepCall retry(RetryPolicy policy);

    /** Each attempt fails {@code timeout} past {@code timeout} (its thread is interrupted). */
    StepCall timeout(java.time.Duration timeout);

    JsonNode call(StepBody<?> body);

    <T> T call(Class<T> type, StepBody<T> body);
  }

  /**
   * A command handle with a policy; immutable. Its policy lowers to the child step's {@code
   * timeoutMs}, {@code maxIterations} and {@code retry}; every failure is retried (a policy naming
   * {@code doNotRetry} is refused {@code invalid_input}).
   */
  interface Command {
    Command timeout(java.time.Duration timeout);

    Command retry(RetryPolicy policy);

    JsonNode call();

    /** As {@link #call}, without waiting (see {@link McpTool#callAsync}). */
    Pending<JsonNode> callAsync();
  }

  /**
   * A child flow handle, taking an {@code I} and answering an {@code O}; immutable: each policy
   * method answers a new handle. The child is a run of its own (its own body and journal) whose
   * parent is this run, its id derived from the call's position, so a replay finds it; cancelling
   * this run cancels it, and this run ending cancels it when still open. Its MCP servers come from
   * this run's frozen inventory: a server the child declares must be declared by this flow too.
   */
  interface FlowCall<I, O> {
    /**
     * Starts the child with {@code input} and waits for its result, holding no thread past {@code
     * suspendAfter}. A child that failed throws {@link ChildFailedException} with its diagnostic.
     */
    O call(I input);

    /** As {@link #call}, without waiting. */
    Pending<O> callAsync(I input);

    /**
     * Each attempt's child run must end within {@code timeout} of its start: past it, the child is
     * cancelled (the reason names the timeout) and the attempt fails {@code timeout}. The deadline
     * is journaled when the child is started, so a replay waits for the same one; a waiting body
     * holds no thread past {@code suspendAfter} and is woken at the deadline or the child's end.
     * Retried only under an explicit {@link #retry} policy that does not name {@code timeout}. A
     * timeout that is not positive fails {@code invalid_input}.
     */
    FlowCall<I, O> timeout(Duration timeout);

    /**
     * A child run that failed is followed by a new child run (its id derived from the call's
     * position and the attempt's number, so a replay finds each) after the policy's backoff, a
     * durable due time, while attempts are left and {@code doNotRetry} does not name the failure's
     * code; then the call fails {@code retries_exhausted} with the last child's diagnostic. A child
     * cancelled by anyone but its timeout is not retried.
     */
    FlowCall<I, O> retry(RetryPolicy policy);
  }

  /** The body of a memoized step. */
  @FunctionalInterface
  interface StepBody<T> {
    T get() throws Exception;
  }
}
