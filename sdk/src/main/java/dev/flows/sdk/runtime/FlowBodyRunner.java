package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.PayloadLimits;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.keys.SecretKeys;
import dev.flows.kernel.spec.StepBody;
import dev.flows.sdk.ChildFailedException;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowsError;
import dev.flows.worker.mcp.InlineMcpCalls;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * Runs one attempt of a flow body and says how it ended. Replays are the normal case: the body
 * always runs from the top, and its {@code f} calls answer from the journal where they can.
 */
public final class FlowBodyRunner {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private final Journal journal;
  private final FlowResolver resolver;
  private final SdkConfig config;
  private final ChildStarter starter;
  private final Optional<InlineMcpCalls> inline;
  private final ResidentWaits resident;
  private final InstantSource clock;
  private volatile BodyModels models = BodyModels.none();
  private volatile SecretKeys secretKeys = SecretKeys.none();
  private volatile PayloadLimits limits = PayloadLimits.DEFAULTS;

  /** A runner whose bodies await every child a claimer runs (no inline MCP calls). */
  public FlowBodyRunner(Journal journal, FlowResolver resolver, SdkConfig config) {
    this(journal, resolver, config, ChildStarter.QUEUED, Optional.empty(), InstantSource.system());
  }

  /**
   * A runner whose bodies perform their first MCP calls themselves through {@code inline} (see
   * {@link InlineMcpCalls}); replays, recoveries and commands still go through child runs.
   */
  public FlowBodyRunner(
      Journal journal, FlowResolver resolver, SdkConfig config, InlineMcpCalls inline) {
    this(journal, resolver, config, inline, InstantSource.system());
  }

  /** As above, with bodies judging their deadlines and patience by {@code clock}. */
  public FlowBodyRunner(
      Journal journal,
      FlowResolver resolver,
      SdkConfig config,
      InlineMcpCalls inline,
      InstantSource clock) {
    this(journal, resolver, config, ChildStarter.QUEUED, Optional.of(inline), clock);
  }

  FlowBodyRunner(Journal journal, FlowResolver resolver, SdkConfig config, ChildStarter starter) {
    this(journal, resolver, config, starter, Optional.empty(), InstantSource.system());
  }

  /** A runner without inline MCP calls whose bodies judge time by {@code clock}. */
  FlowBodyRunner(Journal journal, FlowResolver resolver, SdkConfig config, InstantSource clock) {
    this(journal, resolver, config, ChildStarter.QUEUED, Optional.empty(), clock);
  }

  private FlowBodyRunner(
      Journal journal,
      FlowResolver resolver,
      SdkConfig config,
      ChildStarter starter,
      Optional<InlineMcpCalls> inline,
      InstantSource clock) {
    this.journal = journal;
    this.clock = clock;
    this.resolver = resolver;
    this.config = config;
    this.starter = starter;
    this.inline = inline;
    this.resident = new ResidentWaits(config.maxResidentWaits());
  }

  /** The keys this runner's bodies seal secret call arguments under; none until given. */
  public FlowBodyRunner secrets(SecretKeys keys) {
    this.secretKeys = keys;
    return this;
  }

  /** The limits this runner's bodies' step values are held to; the defaults until given. */
  public FlowBodyRunner limits(PayloadLimits limits) {
    this.limits = limits;
    return this;
  }

  /** The models this runner's bodies call ({@code f.llm}); none until given. */
  public FlowBodyRunner models(BodyModels models) {
    this.models = models;
    return this;
  }

  /**
   * Runs the body. Answers the outcome to complete the attempt with; an interrupt (the lease was
   * lost) propagates so the caller completes nothing.
   */
  public StepOutcome run(ClaimedAttempt attempt) throws InterruptedException {
    FlowBodyInstruction instruction;
    try {
      instruction = FlowBodyInstruction.of((StepBody.Agent) attempt.step().body());
    } catch (FlowsException e) {
      // A malformed instruction stays malformed on every worker: no retry.
      return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, tail(e), false);
    }
    Flow flow;
    try {
      flow = resolver.resolve(instruction);
    } catch (FlowsException e) {
      // Another worker may have the flow (or the version): let the step retry there.
      return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, tail(e), true);
    }
    DurableCtx ctx =
        new DurableCtx(
            journal,
            attempt,
            flow.header(),
            new Inventory(instruction.inventory()),
            config,
            starter,
            inline,
            resident,
            clock,
            resolver,
            models,
            secretKeys,
            limits);
    StepOutcome outcome;
    try {
      JsonNode result = FlowTypes.run(flow, new AuthorCtx(ctx), attempt.step().input());
      // The run's result is seen by others only with every memo the body made: those not sent
      // yet are journaled by the completion, in its transaction.
      List<MemoEffect> unsent = ctx.memos().takeUnsent();
      outcome = new StepOutcome.Succeeded(result == null ? JSON.nullNode() : result, unsent);
    } catch (SuspendSignal w) {
      // What the body waits for goes on (a child's end, a signal or the due time readies this
      // step again): nothing to cancel.
      return afterMemos(ctx, flow, attempt, w.outcome);
    } catch (ParkSignal p) {
      return parked(ctx, flow, attempt, p);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      outcome = afterMemos(ctx, flow, attempt, failed(e, flow, attempt));
    }
    ctx.cancelOpenChildren("the flow body ended");
    return outcome;
  }

  /** The body parks as its child did: for input it needs, or until an operator resolves it. */
  private StepOutcome parked(DurableCtx ctx, Flow flow, ClaimedAttempt attempt, ParkSignal p)
      throws InterruptedException {
    ObjectNode t =
        JSON.objectNode().put("type", FlowBodyInstruction.TYPE).put("parkedChild", p.child.value());
    if (p.why.isPresent()) {
      t.put("diagnostic", ErrorCode.INPUT_REQUIRED.wire()).put("message", p.why.get());
      return new StepOutcome.Parked(CompletionReason.WORKER_ERROR, ErrorCode.INPUT_REQUIRED, t);
    }
    t.put("diagnostic", ErrorCode.EFFECT_OUTCOME_UNKNOWN.wire())
        .put("message", "child run " + p.child + " is parked until an operator resolves it");
    return afterMemos(
        ctx,
        flow,
        attempt,
        new StepOutcome.Parked(CompletionReason.WORKER_ERROR, ErrorCode.EFFECT_OUTCOME_UNKNOWN, t));
  }

  /**
   * {@code outcome} once the body's memos are journaled; if they are refused, the failure of the
   * refusal, as when a step's own memo is refused in the body.
   */
  private static StepOutcome afterMemos(
      DurableCtx ctx, Flow flow, ClaimedAttempt attempt, StepOutcome outcome)
      throws InterruptedException {
    try {
      ctx.memos().flush();
      return outcome;
    } catch (RuntimeException e) {
      return failed(e, flow, attempt);
    }
  }

  /** How an attempt whose body (or its memos) threw {@code e} ends; a lost lease propagates. */
  private static StepOutcome failed(Exception e, Flow flow, ClaimedAttempt attempt)
      throws InterruptedException {
    if (Thread.currentThread().isInterrupted()) {
      throw new InterruptedException("lease lost during the body");
    }
    if (e instanceof FlowsException fe) {
      return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, tail(fe), false);
    }
    if (e instanceof PublicError pe) {
      return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, tail(pe.engine()), false);
    }
    if (e instanceof FlowsError fe && ErrorCode.fromWire(fe.code()).isPresent()) {
      return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, tail(fe), false);
    }
    FlowsException wrapped =
        new FlowsException(
            ErrorCode.FLOW_FAILED,
            "the body threw " + e,
            "flow " + flow.header().name(),
            // Resume replays the source the run started with: a fixed flow needs a new run.
            "fix the flow, then `flows runs rerun " + attempt.lease().runId().value() + "`",
            false,
            e);
    return new StepOutcome.Failed(CompletionReason.WORKER_ERROR, tail(wrapped), false);
  }

  static ObjectNode tail(FlowsException e) {
    return tail(e.code().wire(), e.getMessage(), e.place(), e.fix());
  }

  /**
   * The public exception a body threw (a {@link ChildFailedException} it let through, or one it
   * made), read back by its code: journaled exactly as the engine's own.
   */
  private static ObjectNode tail(FlowsError e) {
    ObjectNode d = tail(e.code(), e.getMessage(), e.place(), e.fix());
    if (e instanceof ChildFailedException c) {
      d.put("child", c.child().value());
      d.set("childTail", c.diagnostic());
    }
    return d;
  }

  private static ObjectNode tail(
      String code, String message, Optional<String> place, Optional<String> fix) {
    ObjectNode d = JSON.objectNode().put("type", FlowBodyInstruction.TYPE);
    d.put("diagnostic", code).put("message", message);
    place.ifPresent(p -> d.put("place", p));
    fix.ifPresent(f -> d.put("fix", f));
    return d;
  }
}
