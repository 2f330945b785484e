package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.MemoVerb;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.Backoff;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.sdk.CallPolicy;
import dev.flows.sdk.ChildFailedException;
import dev.flows.sdk.RetryPolicy;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.Set;

/**
 * A child flow call with a policy ({@code f.flow(name).timeout(d).retry(p)}). Each attempt is a
 * child run of its own: the first has the position's child id (as a call without a policy), attempt
 * {@code n} an id derived from the position and {@code n}, so a replay finds each one. Each attempt
 * is journaled before its child starts, and a replay judges against those times, never fresh ones:
 *
 * <ul>
 *   <li>{@code /memo/<pos>/flow/<n>}: {@code {"verb":"f.flow","flow","attempt","child",
 *       "notBefore","policy"?,"after"?}}, when the attempt is decided (the first when the call is
 *       made, the next when the one before failed: {@code notBefore} is then its backoff's due time
 *       and {@code after} that failure);
 *   <li>{@code /memo/<pos>/flow/<n>/deadline}: {@code {"verb":"f.flow","flow","attempt",
 *       "deadline"}}, with a timeout, just before its child is admitted.
 * </ul>
 *
 * An attempt whose child has not ended by its deadline has its child cancelled (the reason names
 * the timeout) and fails {@code timeout}. A child that failed, or timed out, is retried while
 * attempts are left and the policy does not name its code; a child cancelled otherwise is not.
 */
final class FlowAttempts implements Children.Awaited {
  static final String VERB = MemoVerb.FLOW.wire();
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** What the flow calls of one body attempt share. */
  record Deps(
      Journal journal,
      BodyMemos memos,
      ChildIssuer issuer,
      InstantSource clock,
      RunRef root,
      String flow) {}

  private final Deps d;
  private final int pos;
  private final String name;
  private final RunSpec spec;
  private final String call;
  private final CallPolicy policy;
  private final RetryPolicy retry;

  private int attempt;
  private JsonNode decision;
  private Optional<Children.Issued> current = Optional.empty();
  private Optional<Instant> deadline = Optional.empty();
  private boolean ended;
  private Optional<ChildFailedException> failure = Optional.empty();

  private FlowAttempts(Deps d, int pos, String name, RunSpec spec, String call, CallPolicy policy) {
    this.d = d;
    this.pos = pos;
    this.name = name;
    this.spec = spec;
    this.call = call;
    this.policy = policy;
    this.retry = policy.retry().orElse(RetryPolicy.none());
  }

  /** Takes the next position and issues (or, on replay, finds) the call's latest attempt. */
  static FlowAttempts issue(Deps d, ChildFlows.Target target, RunSpec spec, CallPolicy policy) {
    String call = target.call();
    int pos = d.issuer().position(call);
    FlowAttempts a = new FlowAttempts(d, pos, target.flow().header().name(), spec, call, policy);
    a.resume();
    return a;
  }

  int position() {
    return pos;
  }

  private void resume() {
    int n = 1;
    while (d.memos().flowRecord(pos, String.valueOf(n + 1)).isPresent()) {
      n++;
    }
    attempt = n;
    decision =
        d.memos()
            .flowRecord(pos, String.valueOf(n))
            .orElseGet(() -> decide(1, d.clock().instant(), Optional.empty()));
    if (!decision.path("flow").asText().equals(name)) {
      throw ChildReports.nondeterministic(
          d.flow(), pos, "f.flow(\"" + decision.path("flow").asText() + "\")", call);
    }
  }

  private JsonNode decide(int n, Instant notBefore, Optional<ChildFailedException> after) {
    ObjectNode m = BodyMemos.verb(VERB).put("flow", name).put("attempt", n);
    m.put("child", Lowering.childId(d.root(), pos, n).value());
    m.put("notBefore", notBefore.toString());
    if (n == 1) {
      m.set("policy", StepCalls.json(policy));
    }
    after.ifPresent(e -> m.putObject("after").put("code", e.code()).put("message", e.getMessage()));
    return d.memos().keepFlowRecord(pos, String.valueOf(n), m);
  }

  @Override
  public boolean ended(Children children) {
    while (!ended) {
      if (current.isEmpty()) {
        RunRef child = Lowering.childId(d.root(), pos, attempt);
        Instant notBefore = Instant.parse(decision.path("notBefore").asText());
        if (!children.known().contains(child) && d.clock().instant().isBefore(notBefore)) {
          return false;
        }
        start(child);
      }
      Children.Issued c = current.orElseThrow();
      if (!c.ended(children)) {
        if (deadline.isEmpty() || d.clock().instant().isBefore(deadline.get())) {
          return false;
        }
        // Idempotent, and harmless when the child ended meanwhile: the next look reads its end.
        d.memos().flush();
        d.journal().cancelRun(c.run(), timeoutReason());
        continue;
      }
      settle(children, c);
    }
    return true;
  }

  private void start(RunRef child) {
    if (policy.timeout().isPresent()) {
      String rest = attempt + "/deadline";
      JsonNode dl =
          d.memos()
              .flowRecord(pos, rest)
              .orElseGet(
                  () -> {
                    Instant due = d.clock().instant().plus(policy.timeout().get());
                    ObjectNode m = BodyMemos.verb(VERB).put("flow", name).put("attempt", attempt);
                    return d.memos().keepFlowRecord(pos, rest, m.put("deadline", due.toString()));
                  });
      deadline = Optional.of(Instant.parse(dl.path("deadline").asText()));
    }
    current = Optional.of(d.issuer().place(pos, child, spec, call, s -> ChildFlows.same(s, spec)));
  }

  /** The child of this attempt ended: the call ended, or its next attempt is decided. */
  private void settle(Children children, Children.Issued c) {
    ChildFailedException e;
    try {
      children.resultOf(c);
      ended = true;
      return;
    } catch (ParkSignal parked) {
      ended = true; // answered again by result()
      return;
    } catch (ChildFailedException x) {
      e = x;
    }
    RunSnapshot s = d.journal().run(c.run()).orElseThrow();
    boolean timedOut =
        s.status() == RunStatus.CANCELED
            && ChildReports.cancelReason(d.journal(), c.run()).equals(timeoutReason());
    if (timedOut) {
      e = timedOut(c.run());
    }
    String raw = e.diagnostic().path("diagnostic").asText(e.code());
    boolean retried =
        (timedOut || s.status() == RunStatus.FAILED)
            && attempt < retry.maxAttempts()
            && retry.retries(e.code(), e)
            && retry.retries(raw, null);
    if (retried) {
      long delay =
          Backoff.delayMs(Lowering.backoff(retry), attempt, d.root().value() + "/memo/" + pos);
      attempt++;
      decision = decide(attempt, d.clock().instant().plusMillis(delay), Optional.of(e));
      current = Optional.empty();
      deadline = Optional.empty();
      return;
    }
    ended = true;
    failure = Optional.of(retry.maxAttempts() > 1 ? exhausted(e, c.run()) : e);
  }

  private ChildFailedException exhausted(ChildFailedException last, RunRef child) {
    if (attempt < retry.maxAttempts()) {
      return last; // not retried: a code the policy names, or a child cancelled by someone else
    }
    return new ChildFailedException(
        ErrorCode.RETRIES_EXHAUSTED.wire(),
        call + " failed all " + attempt + " attempts; the last: " + last.getMessage(),
        new dev.flows.sdk.RunId(child.value()),
        last.diagnostic(),
        false);
  }

  private ChildFailedException timedOut(RunRef child) {
    String message =
        call
            + " did not end within its timeout of "
            + policy.timeout().orElseThrow()
            + " (deadline "
            + deadline.orElseThrow()
            + "); its child run was cancelled";
    ObjectNode diagnostic =
        JSON.objectNode().put("diagnostic", ErrorCode.TIMEOUT.wire()).put("message", message);
    diagnostic.put("call", call).put("deadline", deadline.orElseThrow().toString());
    return new ChildFailedException(
        ErrorCode.TIMEOUT.wire(),
        message,
        new dev.flows.sdk.RunId(child.value()),
        diagnostic,
        false);
  }

  /** The reason the child of a timed-out attempt is cancelled with: made from journaled values. */
  private String timeoutReason() {
    return "timeout: "
        + call
        + " attempt "
        + attempt
        + " passed its deadline "
        + deadline.orElseThrow()
        + " (timeout "
        + policy.timeout().orElseThrow()
        + ")";
  }

  @Override
  public Set<RunRef> runs() {
    return current.map(c -> Set.of(c.run())).orElse(Set.of());
  }

  @Override
  public Optional<Instant> wakeAt() {
    return current.isEmpty()
        ? Optional.of(Instant.parse(decision.path("notBefore").asText()))
        : deadline;
  }

  @Override
  public boolean unclaimed(Children children) {
    return current.map(c -> children.attempts(c.run()) == 0).orElse(false);
  }

  @Override
  public JsonNode result(Children children) {
    if (failure.isPresent()) {
      throw failure.get();
    }
    return children.resultOf(current.orElseThrow());
  }
}
