package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.RunAdmissionConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.ChildFailedException;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.McpResult;
import dev.flows.worker.FaultPoint;
import dev.flows.worker.mcp.InlineMcpCalls;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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

  /** Starts a child run; a seam so tests can hold a start back past the dispatch deadline. */
  @FunctionalInterface
  interface ChildStarter {
    void start(Journal journal, StartRun request);
  }

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
  private final Set<RunId> children; // insertion order: cancelled in admission order
  private final BodyMemos memos;
  private final Waits waits;
  private final Deterministic deterministic;
  private final StepCalls steps;

  /** Children this attempt saw end: the end of the body need not look at them again. */
  private final Set<RunId> settled = new HashSet<>();

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
      InstantSource clock) {
    this.journal = journal;
    this.clock = clock;
    this.resident = resident;
    this.inline = inline;
    this.attempt = attempt;
    this.header = header;
    this.inventory = inventory;
    this.config = config;
    this.starter = starter;
    this.children = new java.util.LinkedHashSet<>(journal.children(runId()));
    // What earlier attempts did, read once: replayed positions answer from here.
    this.memos = new BodyMemos(journal, attempt, header.name(), children);
    this.waits =
        new Waits(journal, attempt.lease(), memos, clock, this::nextPosition, this::suspend);
    this.deterministic = new Deterministic(memos, clock, this::nextPosition);
    this.steps =
        new StepCalls(
            memos,
            header.name(),
            runId().value(),
            clock,
            config.suspendAfter(),
            this::nextPosition,
            this::suspend);
  }

  private int nextPosition() {
    suspended.ifPresent(
        signal -> {
          throw signal;
        });
    if (position > 0) {
      FaultPoint.BETWEEN_BODY_CALLS.reached();
    }
    return ++position;
  }

  @Override
  public RunId runId() {
    return attempt.lease().runId();
  }

  @Override
  public JsonNode input() {
    return attempt.step().input();
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
    return tool -> new PolicyHandles.Tool(server, tool, CallPolicy.DEFAULT, this::callMcp);
  }

  private McpResult callMcp(String server, String tool, Object args, CallPolicy policy) {
    if (!inventory.hasTool(server, tool)) {
      throw new FlowsException(
          ErrorCode.MCP_UNKNOWN_TOOL,
          "server '"
              + server
              + "' has no tool '"
              + tool
              + "' (tools: "
              + inventory.tools(server)
              + ")",
          "flow " + header.name(),
          "call one of the server's tools; `flows mcp tools " + server + "` lists them");
    }
    JsonNode argsJson = MAPPER.valueToTree(args == null ? Map.of() : args);
    if (!argsJson.isObject()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "tool arguments must be a JSON object, got " + argsJson.getNodeType(),
          server + "/" + tool,
          "pass a Map, a record or an ObjectNode");
    }
    RunSpec spec =
        Lowering.mcpCall(
            header.name(),
            server,
            tool,
            argsJson,
            inventory.connection(server).orElseThrow(),
            inventory.mayReperform(server, tool),
            policy,
            config);
    String call = "f.mcp(\"" + server + "\").tool(\"" + tool + "\")";
    return new McpResult(child(spec, call, Optional.of(Lowering.mcpSurface(server, tool))));
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
      throw invalid("f.sleep needs a duration of zero or more, got " + duration, "f.sleep");
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
      throw invalid("f.awaitSignal needs a positive timeout, got " + timeout, "f.awaitSignal");
    }
    return waits.awaitSignal(name, timeout, "f.awaitSignal(\"" + name + "\")");
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

  private FlowsException invalid(String message, String call) {
    return new FlowsException(
        ErrorCode.INVALID_INPUT, message, "flow " + header.name(), "fix the " + call + " call");
  }

  @Override
  public JsonNode run(String... argv) {
    return command(argv).call();
  }

  @Override
  public Command command(String... argv) {
    return new PolicyHandles.Command(List.of(argv), false, CallPolicy.DEFAULT, this::command);
  }

  @Override
  public Command shell(String command) {
    return new PolicyHandles.Command(List.of(command), true, CallPolicy.DEFAULT, this::command);
  }

  private JsonNode command(List<String> argv, boolean shell, CallPolicy policy) {
    if (argv.isEmpty()) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT, "f.run needs a command", header.name(), "pass argv");
    }
    return child(
        Lowering.command(header.name(), argv, shell, commandDir(), policy, config),
        ChildReports.commandCall(argv, shell),
        Optional.empty());
  }

  /** A single-file flow's commands run in its file's directory, recorded when it was admitted. */
  private Optional<String> commandDir() {
    return attempt.step().body() instanceof dev.flows.kernel.spec.StepBody.Agent a
        ? Lowering.commandDir(a.instruction())
        : Optional.empty();
  }

  @Override
  public JsonNode sh(String command) {
    return shell(command).call();
  }

  /**
   * Admits (or finds, on replay) the child at the next position and waits for its result. A first
   * MCP call ({@code inlineSurface} present) is performed by this worker at once when it can.
   */
  private JsonNode child(RunSpec spec, String call, Optional<String> inlineSurface) {
    int pos = nextPosition();
    Optional<JsonNode> memo = memos.at(pos);
    if (memo.isPresent()) {
      throw memos.refuse(pos, memo.get(), call);
    }
    RunId child = Lowering.childId(runId(), pos);
    Instant began = clock.instant();
    // A body waits in memory only while a place is free; otherwise it gives its attempt back as
    // soon as it would wait.
    boolean inMemory = resident.tryEnter();
    Duration patience = inMemory ? config.suspendAfter() : Duration.ZERO;
    try {
      if (!children.contains(child) && inline.isPresent() && inlineSurface.isPresent()) {
        Optional<JsonNode> receipt =
            callInline(child, spec, call, pos, inlineSurface.get(), patience);
        children.add(child);
        if (receipt.isPresent()) {
          settled.add(child);
          return receipt.get();
        }
      } else if (!children.contains(child)) {
        admit(child, spec, call, pos);
        children.add(child);
      } else {
        RunSnapshot existing = journal.run(child).orElseThrow();
        if (!existing.specHash().equals(RunSpecJson.hash(spec))) {
          throw ChildReports.nondeterministic(header.name(), pos, describeChild(child), call);
        }
      }
      return await(child, began, patience);
    } finally {
      if (inMemory) {
        resident.leave();
      }
    }
  }

  /**
   * The inline fast path: two transactions, no claim, no polling. Answers the receipt, or empty
   * when the child must be awaited as a claimed one is (it failed, retries, or was admitted
   * before).
   */
  private Optional<JsonNode> callInline(
      RunId child, RunSpec spec, String call, int pos, String surface, Duration patience) {
    StartRun req =
        new StartRun(
            Optional.of(child), child.value(), spec, Optional.of(runId()), "flow:" + header.name());
    try {
      return switch (inline.orElseThrow().call(req, surface, patience)) {
        case InlineMcpCalls.Result.Succeeded ok -> Optional.of(ok.receipt());
        case InlineMcpCalls.Result.AwaitChild await -> Optional.empty();
        case InlineMcpCalls.Result.StillRunning running -> {
          // The call goes on in this worker and ends its child run itself; that end wakes us.
          children.add(child);
          throw suspend(child);
        }
      };
    } catch (RunAdmissionConflictException e) {
      // Admitted already (a retried admission whose first answer was lost): await that run.
      RunSnapshot existing = journal.run(child).orElseThrow(() -> e);
      if (!existing.specHash().equals(RunSpecJson.hash(spec))) {
        throw ChildReports.nondeterministic(header.name(), pos, describeChild(child), call);
      }
      return Optional.empty();
    } catch (RunTerminalException e) {
      throw new ChildFailedException(
          ErrorCode.DISPATCH_TIMEOUT,
          call + " was cancelled before it started: " + ChildReports.cancelReason(journal, child),
          child,
          JSON.objectNode().put("call", call),
          false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlowsException(
          ErrorCode.LEASE_CONFLICT, "attempt interrupted", call, "the journal re-drives the run");
    }
  }

  private void admit(RunId child, RunSpec spec, String call, int pos) {
    StartRun req =
        new StartRun(
            Optional.of(child), child.value(), spec, Optional.of(runId()), "flow:" + header.name());
    CompletableFuture<Void> start =
        CompletableFuture.runAsync(
            () -> starter.start(journal, req), r -> Thread.ofVirtual().start(r));
    try {
      start.get(config.dispatchDeadline().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // The start may still land later; the tombstone (or this cancel) stops it either way.
      journal.cancelRun(child, "dispatch deadline passed before the child was admitted");
      throw ChildReports.dispatchTimeout(config.dispatchDeadline(), child, call);
    } catch (InterruptedException e) {
      start.cancel(true);
      Thread.currentThread().interrupt();
      throw new FlowsException(
          ErrorCode.LEASE_CONFLICT, "attempt interrupted", call, "the journal re-drives the run");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RunAdmissionConflictException) {
        throw ChildReports.nondeterministic(header.name(), pos, describeChild(child), call);
      }
      if (cause instanceof RunTerminalException) {
        throw new ChildFailedException(
            ErrorCode.DISPATCH_TIMEOUT,
            call + " was cancelled before it started: " + ChildReports.cancelReason(journal, child),
            child,
            JSON.objectNode().put("call", call),
            false);
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(cause);
    }
  }

  /**
   * Waits for the child to end: woken by its completion (at once when this process completed it, by
   * NOTIFY when another worker did), with {@code childPoll} as the fallback between looks.
   */
  private JsonNode await(RunId child, Instant began, Duration patience) {
    try (RunWatch watch = journal.watchRun(child)) {
      return awaitWatched(child, began, patience, watch);
    }
  }

  private JsonNode awaitWatched(RunId child, Instant began, Duration patience, RunWatch watch) {
    Instant deadline = began.plus(config.dispatchDeadline());
    Instant suspendAt = clock.instant().plus(patience);
    while (true) {
      RunSnapshot s = journal.run(child).orElseThrow();
      StepSnapshot step = s.steps().getFirst();
      if (s.status().terminal()) {
        settled.add(child);
      }
      switch (s.status()) {
        case SUCCEEDED -> {
          return step.output().orElse(JSON.nullNode());
        }
        case PARKED -> throw new ParkSignal(child);
        case FAILED, CANCELED -> throw ChildReports.failed(journal, child, s, describeChild(child));
        case RUNNING -> {
          if (step.attempts() == 0 && clock.instant().isAfter(deadline)) {
            journal.cancelRun(child, "dispatch deadline passed before a worker claimed it");
            throw ChildReports.dispatchTimeout(
                config.dispatchDeadline(), child, describeChild(child));
          }
          // Only a child some worker has claimed: an unclaimed one is bounded by the dispatch
          // deadline, which a suspended body could not enforce.
          if (step.attempts() > 0 && !clock.instant().isBefore(suspendAt)) {
            throw suspend(child);
          }
        }
      }
      Duration wait = config.childPoll();
      if (step.attempts() > 0 && remaining(suspendAt).compareTo(wait) < 0) {
        wait = remaining(suspendAt);
      }
      try {
        watch.await(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new FlowsException(
            ErrorCode.LEASE_CONFLICT,
            "attempt interrupted while waiting for " + child,
            child.value(),
            "the journal re-drives the run");
      }
    }
  }

  private SuspendSignal suspend(RunId child) {
    return suspend(
        new SuspendSignal(
            new StepOutcome.Suspended(child, config.suspendRecheck()), "child run " + child));
  }

  private SuspendSignal suspend(SuspendSignal signal) {
    suspended = Optional.of(signal);
    return signal;
  }

  private String describeChild(RunId child) {
    return ChildReports.describe(journal, child);
  }

  /** Cancels the children still open when the root ends: no orphan runs. */
  void cancelOpenChildren(String why) {
    // Every child is in `children` (read at the start, or admitted since); those seen ending need
    // no look, so a body whose calls all returned reads nothing here.
    for (RunId c : children) {
      if (settled.contains(c)) {
        continue;
      }
      journal.run(c).filter(s -> !s.status().terminal()).ifPresent(s -> journal.cancelRun(c, why));
    }
  }

  private Duration remaining(Instant deadline) {
    Duration d = Duration.between(clock.instant(), deadline);
    return d.isNegative() ? Duration.ZERO : d;
  }
}
