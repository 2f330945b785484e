package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.RunAdmissionConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.sdk.ChildFailedException;
import dev.flows.worker.mcp.InlineMcpCalls;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

/**
 * Issues a body's child calls: takes the call's position and admits its child run (performing a
 * first MCP call inline when it can), or finds the child on replay and checks it is the same call
 * ({@code nondeterministic_replay} otherwise). Issuing does not wait for the child's end, except a
 * synchronous inline call, which waits as long as it was given.
 */
final class ChildIssuer {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final Journal journal;
  private final RunRef root;
  private final String flow;
  private final SdkConfig config;
  private final InstantSource clock;
  private final ChildStarter starter;
  private final Optional<InlineMcpCalls> inline;
  private final Children children;
  private final BodyMemos memos;
  private final IntSupplier nextPosition;
  private final Function<RunRef, SuspendSignal> suspend;

  ChildIssuer(
      Journal journal,
      RunRef root,
      String flow,
      SdkConfig config,
      InstantSource clock,
      ChildStarter starter,
      Optional<InlineMcpCalls> inline,
      Children children,
      BodyMemos memos,
      IntSupplier nextPosition,
      Function<RunRef, SuspendSignal> suspend) {
    this.journal = journal;
    this.root = root;
    this.flow = flow;
    this.config = config;
    this.clock = clock;
    this.starter = starter;
    this.inline = inline;
    this.children = children;
    this.memos = memos;
    this.nextPosition = nextPosition;
    this.suspend = suspend;
  }

  /** A call issued at {@code position}; {@code ready}: its result when known at once. */
  record Issue(int position, Children.Issued child, Optional<JsonNode> ready) {}

  /**
   * Takes the next position and admits its child, or finds it on replay (the same call when its
   * spec hashes alike). {@code inlineWait}: how long a synchronous inline call waits before the
   * body suspends; empty for an asynchronous call, which goes on in this worker without waiting.
   */
  Issue issue(
      RunSpec spec, String call, Optional<String> inlineSurface, Optional<Duration> inlineWait) {
    String hash = RunSpecJson.hash(spec);
    return issue(spec, call, inlineSurface, inlineWait, s -> s.specHash().equals(hash));
  }

  /** As above, with {@code sameCall} deciding whether a journaled child is this call. */
  Issue issue(
      RunSpec spec,
      String call,
      Optional<String> inlineSurface,
      Optional<Duration> inlineWait,
      Predicate<RunSnapshot> sameCall) {
    int pos = position(call);
    RunRef child = Lowering.childId(root, pos);
    if (!children.known().contains(child)) {
      memos.fresh(pos, call);
    }
    if (!children.known().contains(child) && inline.isPresent() && inlineSurface.isPresent()) {
      Children.Issued issued = new Children.Issued(child, clock.instant(), call);
      Optional<JsonNode> ready =
          callInline(child, spec, call, pos, inlineSurface.get(), inlineWait, sameCall);
      children.admitted(child);
      ready.ifPresent(r -> children.settled(child));
      return new Issue(pos, issued, ready);
    }
    return new Issue(pos, place(pos, child, spec, call, sameCall), Optional.empty());
  }

  /** Takes the next position for a child call; refused when a memo was journaled there. */
  int position(String call) {
    int pos = nextPosition.getAsInt();
    Optional<JsonNode> memo = memos.at(pos);
    if (memo.isPresent()) {
      throw memos.refuse(pos, memo.get(), call);
    }
    return pos;
  }

  /**
   * Admits child run {@code child} of the call at {@code pos}, or finds it on replay (the same call
   * when {@code sameCall} says so).
   */
  Children.Issued place(
      int pos, RunRef child, RunSpec spec, String call, Predicate<RunSnapshot> sameCall) {
    Children.Issued issued = new Children.Issued(child, clock.instant(), call);
    if (!children.known().contains(child)) {
      admit(child, spec, call, pos);
      children.admitted(child);
    } else if (!sameCall.test(journal.run(child).orElseThrow())) {
      throw ChildReports.nondeterministic(flow, pos, ChildReports.describe(journal, child), call);
    }
    return issued;
  }

  /**
   * The inline fast path: two transactions, no claim, no polling. Answers the receipt, or empty
   * when the child must be awaited as a claimed one is (it failed, retries, was admitted before, or
   * goes on without a waiting caller).
   */
  private Optional<JsonNode> callInline(
      RunRef child,
      RunSpec spec,
      String call,
      int pos,
      String surface,
      Optional<Duration> inlineWait,
      Predicate<RunSnapshot> sameCall) {
    // The call's record is the first thing of it another party sees: the memos before it first.
    memos.flush();
    try {
      return switch (inline
          .orElseThrow()
          .call(request(child, spec), surface, inlineWait.orElse(Duration.ZERO))) {
        case InlineMcpCalls.Result.Succeeded ok -> Optional.of(ok.receipt());
        case InlineMcpCalls.Result.AwaitChild await -> Optional.empty();
        case InlineMcpCalls.Result.StillRunning running -> {
          // The call goes on in this worker and ends its child run itself; that end wakes us.
          if (inlineWait.isEmpty()) {
            yield Optional.empty();
          }
          children.admitted(child);
          throw suspend.apply(child);
        }
      };
    } catch (RunAdmissionConflictException e) {
      // Admitted already (a retried admission whose first answer was lost): await that run.
      RunSnapshot existing = journal.run(child).orElseThrow(() -> e);
      if (!sameCall.test(existing)) {
        throw ChildReports.nondeterministic(flow, pos, ChildReports.describe(journal, child), call);
      }
      return Optional.empty();
    } catch (RunTerminalException e) {
      throw cancelledBeforeStart(child, call);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FlowsException(
          ErrorCode.LEASE_CONFLICT, "attempt interrupted", call, "the journal re-drives the run");
    }
  }

  private StartRun request(RunRef child, RunSpec spec) {
    return new StartRun(Optional.of(child), child.value(), spec, Optional.of(root), "flow:" + flow);
  }

  private ChildFailedException cancelledBeforeStart(RunRef child, String call) {
    return new ChildFailedException(
        ErrorCode.DISPATCH_TIMEOUT.wire(),
        call + " was cancelled before it started: " + ChildReports.cancelReason(journal, child),
        new dev.flows.sdk.RunId(child.value()),
        JSON.objectNode().put("call", call),
        false);
  }

  private void admit(RunRef child, RunSpec spec, String call, int pos) {
    memos.flush();
    StartRun req = request(child, spec);
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
        throw ChildReports.nondeterministic(flow, pos, ChildReports.describe(journal, child), call);
      }
      if (cause instanceof RunTerminalException) {
        throw cancelledBeforeStart(child, call);
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(cause);
    }
  }
}
