package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.McpResult;
import dev.flows.sdk.Pending;
import dev.flows.worker.FaultPoint;
import dev.flows.worker.mcp.InlineMcpCalls;
import dev.flows.worker.telemetry.RunTraces;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * The {@link Ctx} of one attempt of a flow body. Every call takes the next position; what a
 * position did is journaled (a memo effect on the root step, or a child run whose id derives from
 * the position), so a later attempt running the body again from the top gets the journaled answers
 * and notices when the body now asks for something else at a position ({@code
 * nondeterministic_replay}).
 */
final class DurableCtx implements Ctx {
  static final ObjectMapper MAPPER = Jackson.mapper();
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final Journal journal;
  private final ClaimedAttempt attempt;
  private final FlowHeader header;
  private final Inventory inventory;
  private final SdkConfig config;
  private final ChildStarter starter;
  private final Optional<InlineMcpCalls> inline;
  private final ResidentWaits resident;
  // The time deadlines and patience are judged by (the system clock outside tests).
  private final InstantSource clock;
  private final Children children;
  private final BodyMemos memos;
  private final Waits waits;
  private final Deterministic deterministic;
  private final Fanout fanout;
  private final ChildFlows flows;
  private final ChildIssuer issuer;
  private final StepCalls steps;
  private final InputAnswers inputs;
  private final ModelCalls models;
  private final Patches patches;
  private final CallSpecs specs;

  private int position;

  /** Set once the body was told to suspend: the attempt is over, whatever the body does next. */
  private Optional<SuspendSignal> suspended = Optional.empty();

  DurableCtx(
      Journal journal,
      ClaimedAttempt attempt,
      FlowHeader header,
      Inventory inventory,
      SdkConfig config,
      ChildStarter starter,
      Optional<InlineMcpCalls> inline,
      ResidentWaits resident,
      InstantSource clock,
      FlowResolver resolver,
      BodyModels models,
      dev.flows.kernel.keys.SecretKeys secretKeys,
      dev.flows.kernel.journal.PayloadLimits limits) {
    this.journal = journal;
    this.clock = clock;
    this.resident = resident;
    this.inline = inline;
    this.attempt = attempt;
    this.header = header;
    this.inventory = inventory;
    this.config = config;
    this.starter = starter;
    MemoWriter writer = new MemoWriter(journal, attempt.lease(), config.memoDelay());
    this.children =
        new Children(
            journal,
            run(),
            config,
            clock,
            resident,
            this::suspend,
            attempt.lease().attempt() == 1,
            writer::flush);
    // The calls this body makes find their trace's root without reading the journal.
    RunTraces.rootKnown(run(), RunTraces.root(journal, run(), attempt.parentRunId()));
    // What earlier attempts did, read once: replayed positions answer from here.
    this.memos = new BodyMemos(journal, attempt, writer, header.name(), children.known());
    this.waits =
        new Waits(journal, attempt.lease(), memos, clock, this::nextPosition, this::suspend);
    this.deterministic = new Deterministic(memos, clock, this::nextPosition);
    this.specs = new CallSpecs(header, inventory, config, rootInstruction(), secretKeys);
    this.patches = new Patches(memos, this::peekPosition, this::nextPosition);
    this.inputs = new InputAnswers(journal, memos, run());
    this.fanout =
        new Fanout(
            children, memos, inputs, this::nextPosition, this::checkNotSuspended, header.name());
    this.flows = new ChildFlows(resolver, header.name(), rootInstruction());
    this.issuer = issuer();
    this.models =
        new ModelCalls(journal, attempt, memos, header, models, this::nextPosition, limits);
    this.steps = steps(limits);
  }

  /** This body's {@code f.step} calls, their values held to {@code limits}. */
  private StepCalls steps(dev.flows.kernel.journal.PayloadLimits limits) {
    return new StepCalls(
        memos,
        header.name(),
        run().value(),
        clock,
        config.suspendAfter(),
        this::nextPosition,
        this::suspend,
        limits);
  }

  /** Issues this body's child runs: MCP calls, commands and child flows. */
  private ChildIssuer issuer() {
    return new ChildIssuer(
        journal,
        run(),
        header.name(),
        config,
        clock,
        starter,
        inline,
        children,
        memos,
        this::nextPosition,
        this::suspend);
  }

  private void checkNotSuspended() {
    suspended.ifPresent(
        signal -> {
          throw signal;
        });
  }

  private int nextPosition() {
    checkNotSuspended();
    if (position > 0) {
      FaultPoint.BETWEEN_BODY_CALLS.reached();
    }
    return ++position;
  }

  /** The last position a call took. */
  int position() {
    return position;
  }

  /** The position the next call takes, without taking it. */
  private int peekPosition() {
    checkNotSuspended();
    return position + 1;
  }

  @Override
  public dev.flows.sdk.RunId runId() {
    return new dev.flows.sdk.RunId(run().value());
  }

  RunRef run() {
    return attempt.lease().runId();
  }

  @Override
  public JsonNode input() {
    return attempt.step().input();
  }

  @Override
  public dev.flows.sdk.LlmCall<String> llm(String model) {
    checkNotSuspended();
    return models.call(model);
  }

  @Override
  public dev.flows.sdk.AgentCall<String> agent(String model) {
    checkNotSuspended();
    return AgentLoop.start(new AgentLoop.Body(this, models, inventory, header), model);
  }

  @Override
  public McpServer mcp(String server) {
    if (!header.mcp().contains(server)) {
      throw new FlowsException(
          ErrorCode.MCP_UNDECLARED_SERVER,
          "the body calls server '" + server + "' that the header does not declare",
          "flow " + header.name(),
          "add \"" + server + "\" to the header's tools.mcp (and to flows.json)");
    }
    return tool ->
        new PolicyHandles.Tool(
            this,
            server,
            tool,
            CallPolicy.DEFAULT,
            Optional.empty(),
            false,
            dev.flows.kernel.keys.SecretMarks.NONE);
  }

  McpResult callMcp(PolicyHandles.Tool t, Object args) {
    return specs.result(
        child(
            specs.mcp(t.server(), t.tool(), args, t.policy(), t.approval(), t.secrets()),
            ChildReports.mcpCall(t.server(), t.tool()),
            Optional.of(Lowering.mcpSurface(t.server(), t.tool())),
            t.onInput()));
  }

  Pending<McpResult> callMcpAsync(PolicyHandles.Tool t, Object args) {
    return issueAsync(
        specs.mcp(t.server(), t.tool(), args, t.policy(), t.approval(), t.secrets()),
        ChildReports.mcpCall(t.server(), t.tool()),
        Optional.of(Lowering.mcpSurface(t.server(), t.tool())),
        specs::result,
        t.onInput());
  }

  @Override
  public JsonNode step(String name, StepBody<?> body) {
    return steps.run(name, CallPolicy.DEFAULT, body);
  }

  @Override
  public <T> T step(String name, Class<T> type, StepBody<T> body) {
    return steps.run(name, CallPolicy.DEFAULT, type, body);
  }

  @Override
  public StepCall step(String name) {
    return new PolicyHandles.Step(name, CallPolicy.DEFAULT, steps);
  }

  @Override
  public void sleep(Duration duration) {
    if (duration.isNegative()) {
      throw invalid("f.sleep needs a duration of zero or more, got " + duration, Waits.SLEEP);
    }
    waits.sleepUntil(clock.instant().plus(duration), "f.sleep(" + duration + ")");
  }

  @Override
  public void sleepUntil(Instant until) {
    waits.sleepUntil(until, "f.sleepUntil(" + until + ")");
  }

  @Override
  public Optional<JsonNode> awaitSignal(String name, Duration timeout) {
    dev.flows.kernel.journal.Signals.check(name, Optional.empty());
    if (!timeout.isPositive()) {
      throw invalid("f.awaitSignal needs a positive timeout, got " + timeout, Waits.AWAIT_SIGNAL);
    }
    return waits.awaitSignal(name, timeout, "f.awaitSignal(\"" + name + "\")");
  }

  @Override
  public <T> Optional<T> awaitSignal(String name, Class<T> type, Duration timeout) {
    return awaitSignal(name, timeout)
        .map(j -> FlowTypes.read(j, type, "the payload of signal " + name));
  }

  @Override
  public Instant now() {
    return deterministic.now();
  }

  @Override
  public java.util.UUID randomUUID() {
    return deterministic.randomUUID();
  }

  @Override
  public double random() {
    return deterministic.random();
  }

  @Override
  public boolean patched(String id) {
    return patches.patched(id);
  }

  @Override
  public void deprecatePatch(String id) {
    patches.deprecate(id);
  }

  private FlowsException invalid(String message, String call) {
    return new FlowsException(
        ErrorCode.INVALID_INPUT, message, "flow " + header.name(), "fix the " + call + " call");
  }

  @Override
  public Command command(String... argv) {
    return new PolicyHandles.Command(this, List.of(argv), false, CallPolicy.DEFAULT);
  }

  @Override
  public Command shell(String command) {
    return new PolicyHandles.Command(this, List.of(command), true, CallPolicy.DEFAULT);
  }

  JsonNode runCommand(List<String> argv, boolean shell, CallPolicy policy) {
    return child(
        specs.command(argv, shell, policy),
        ChildReports.commandCall(argv, shell),
        Optional.empty(),
        Optional.empty());
  }

  Pending<JsonNode> runCommandAsync(List<String> argv, boolean shell, CallPolicy policy) {
    return issueAsync(
        specs.command(argv, shell, policy),
        ChildReports.commandCall(argv, shell),
        Optional.empty(),
        j -> j,
        Optional.empty());
  }

  private JsonNode rootInstruction() {
    return ((dev.flows.kernel.spec.StepBody.Agent) attempt.step().body()).instruction();
  }

  private JsonNode rootInventory() {
    return dev.flows.kernel.instruction.FlowBodyInstruction.fromJson(rootInstruction()).inventory();
  }

  @Override
  public List<Object> all(Pending<?>... pending) {
    return fanout.all(Fanout.untyped(pending));
  }

  @Override
  public <T> List<T> all(List<? extends Pending<T>> pending) {
    return fanout.all(pending);
  }

  @Override
  public Pending<?> any(Pending<?>... pending) {
    return fanout.any(Fanout.untyped(pending));
  }

  @Override
  public <T> Pending<T> any(List<? extends Pending<T>> pending) {
    return fanout.any(pending);
  }

  @Override
  public FlowCall<Object, JsonNode> flow(String name) {
    return new DurableFlowCall<>(this, flows.named(name), CallPolicy.DEFAULT, FlowTypes.JSON);
  }

  @Override
  public <I, O> FlowCall<I, O> flow(Class<? extends Flow<I, O>> type) {
    return new DurableFlowCall<>(
        this, flows.ofClass(type), CallPolicy.DEFAULT, FlowTypes.output(type));
  }

  JsonNode callFlow(ChildFlows.Target target, Object input, CallPolicy policy) {
    return withPatience(
        patience -> {
          if (!policy.isDefault()) {
            return children.await(flowAttempts(target, input, policy), patience);
          }
          ChildIssuer.Issue issued = issueFlow(target, input, Optional.of(patience));
          return children.await(issued.child(), patience);
        });
  }

  <T> Pending<T> startFlow(
      ChildFlows.Target target,
      Object input,
      CallPolicy policy,
      java.util.function.Function<JsonNode, T> convert) {
    if (!policy.isDefault()) {
      FlowAttempts a = flowAttempts(target, input, policy);
      return fanout.pending(a.position(), a, Optional.empty(), convert);
    }
    ChildIssuer.Issue issued = issueFlow(target, input, Optional.empty());
    return fanout.pending(issued.position(), issued.child(), issued.ready(), convert);
  }

  private FlowAttempts flowAttempts(ChildFlows.Target target, Object input, CallPolicy policy) {
    JsonNode in = input == null ? JSON.nullNode() : MAPPER.valueToTree(input);
    return FlowAttempts.issue(
        new FlowAttempts.Deps(journal, memos, issuer, clock, run(), header.name()),
        target,
        flows.spec(target, in, rootInventory(), config),
        policy);
  }

  private ChildIssuer.Issue issueFlow(
      ChildFlows.Target target, Object input, Optional<Duration> wait) {
    JsonNode in = input == null ? JSON.nullNode() : MAPPER.valueToTree(input);
    RunSpec spec = flows.spec(target, in, rootInventory(), config);
    // The same flow with the same input: its source may have changed since (it is read from its
    // file when the call is made), which does not make the journaled child another call.
    return issuer.issue(spec, target.call(), Optional.empty(), wait, s -> ChildFlows.same(s, spec));
  }

  /**
   * Admits (or finds, on replay) the child at the next position and waits for its result. A first
   * MCP call ({@code inlineSurface} present) is performed by this worker at once when it can.
   */
  private JsonNode child(
      RunSpec spec,
      String call,
      Optional<String> inlineSurface,
      Optional<Ctx.InputHandler> onInput) {
    int pos = position + 1; // the position issue takes: its child is known before the call
    return withPatience(
        patience ->
            inputs.live(
                pos,
                call,
                onInput,
                () -> {
                  ChildIssuer.Issue issued =
                      issuer.issue(spec, call, inlineSurface, Optional.of(patience));
                  return issued
                      .ready()
                      .orElseGet(
                          () ->
                              inputs.await(
                                  pos,
                                  issued.child().run(),
                                  call,
                                  onInput,
                                  () -> children.await(issued.child(), patience)));
                }));
  }

  /**
   * A body waits in memory only while a place is free; otherwise it gives its attempt back as soon
   * as it would wait ({@code patience} zero).
   */
  private JsonNode withPatience(java.util.function.Function<Duration, JsonNode> call) {
    boolean inMemory = resident.tryEnter();
    try {
      return call.apply(inMemory ? config.suspendAfter() : Duration.ZERO);
    } finally {
      if (inMemory) {
        resident.leave();
      }
    }
  }

  /** Issues the child at the next position without waiting for it. */
  private <T> Pending<T> issueAsync(
      RunSpec spec,
      String call,
      Optional<String> inlineSurface,
      java.util.function.Function<JsonNode, T> convert,
      Optional<Ctx.InputHandler> onInput) {
    ChildIssuer.Issue issued = issuer.issue(spec, call, inlineSurface, Optional.empty());
    return fanout.pending(issued.position(), issued.child(), issued.ready(), convert, onInput);
  }

  private SuspendSignal suspend(RunRef child) {
    return suspend(
        new SuspendSignal(
            new StepOutcome.Suspended(child, config.suspendRecheck()), "child run " + child));
  }

  private SuspendSignal suspend(SuspendSignal signal) {
    suspended = Optional.of(signal);
    return signal;
  }

  /** The body's memos: the barrier at the attempt's end, and what a success hands over. */
  BodyMemos memos() {
    return memos;
  }

  /** Cancels the children still open when the root ends: no orphan runs. */
  void cancelOpenChildren(String why) {
    children.cancelOpen(why);
  }
}
