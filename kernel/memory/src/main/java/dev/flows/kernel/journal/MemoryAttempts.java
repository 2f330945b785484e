package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.MemoryState.Election;
import dev.flows.kernel.journal.MemoryState.RunRow;
import dev.flows.kernel.journal.MemoryState.StepRow;
import dev.flows.kernel.keys.Keys;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.Routes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The in-memory journal's claims and the verbs of a live attempt: heartbeat and lease renewal, and
 * the election and confirmation of its effects. Called under the journal's lock.
 */
final class MemoryAttempts {
  private final MemoryState state;

  MemoryAttempts(MemoryState state) {
    this.state = state;
  }

  List<ClaimedAttempt> claim(ClaimRequest req, Instant now) {
    record Candidate(RunRow run, StepRow step) {}
    List<Candidate> ready = new ArrayList<>();
    for (RunRow run : state.runs.values()) {
      if (run.status != RunStatus.RUNNING || !req.serves(run.queue)) {
        continue;
      }
      for (StepRow step : run.steps.values()) {
        if (req.kinds().contains(step.spec.kind())
            && req.accepts(Routes.of(step.spec))
            && Lifecycle.claimable(step.status, step.notBefore, now)) {
          ready.add(new Candidate(run, step));
        }
      }
    }
    ready.sort(
        Comparator.comparing((Candidate c) -> c.step.notBefore)
            .thenComparingLong(c -> c.step.order));
    List<ClaimedAttempt> claimed = new ArrayList<>();
    for (Candidate c : ready.subList(0, Math.min(req.capacity(), ready.size()))) {
      claimed.add(open(c.run, c.step, req.workerId(), req.defaultLease(), now));
    }
    return claimed;
  }

  int noteUnaccepted(ClaimRequest req, String routePrefix, String reason, Instant now) {
    int noted = 0;
    for (RunRow run : state.runs.values()) {
      if (run.status != RunStatus.RUNNING || !req.serves(run.queue)) {
        continue;
      }
      for (StepRow step : run.steps.values()) {
        String route = Routes.of(step.spec);
        if (noted < req.capacity()
            && req.kinds().contains(step.spec.kind())
            && route.startsWith(routePrefix)
            && !req.accepts(route)
            && Lifecycle.claimable(step.status, step.notBefore, now)
            && !(step.note != null && step.noteAttempts == step.attempts)) {
          step.note = reason;
          step.noteAttempts = step.attempts;
          noted++;
        }
      }
    }
    return noted;
  }

  /** Opens the step's next attempt, leased to {@code worker}, and journals it. */
  ClaimedAttempt open(RunRow run, StepRow step, WorkerId worker, Duration lease, Instant now) {
    step.status = state.transitions.step(StepTransition.CLAIMED, step.status);
    step.attempts++;
    step.leaseId = Keys.leaseId(run.id, step.spec.id(), step.attempts);
    step.leaseMs = step.spec.leaseMs().orElse(lease.toMillis());
    step.leaseDeadline = now.plusMillis(step.leaseMs);
    step.worker = worker;
    String key = Keys.idempotencyKey(run.id, step.spec.id());
    state.append(
        now,
        new JournalEntry.StepAttemptStarted(
            run.id,
            step.spec.id(),
            step.attempts,
            step.spec.kind(),
            key,
            step.leaseId,
            step.leaseDeadline,
            worker));
    return new ClaimedAttempt(
        new LeaseToken(run.id, step.spec.id(), step.attempts, step.leaseId),
        step.leaseDeadline,
        step.leaseMs,
        step.spec,
        key,
        run.parent);
  }

  Instant heartbeat(LeaseToken lease, Instant now) {
    StepRow step = state.live(lease, now);
    step.leaseDeadline = now.plusMillis(step.leaseMs);
    return step.leaseDeadline;
  }

  /** Every lease is judged against the same "now". */
  LeaseRenewals renewLeases(Collection<LeaseToken> leases, Instant now) {
    Map<LeaseToken, Instant> renewed = new HashMap<>();
    Map<LeaseToken, ErrorCode> refused = new HashMap<>();
    for (LeaseToken lease : leases) {
      try {
        renewed.put(lease, heartbeat(lease, now));
      } catch (FlowsException e) {
        refused.put(lease, e.code());
      }
    }
    return new LeaseRenewals(renewed, refused);
  }

  EffectElection recordEffect(LeaseToken lease, String surfacePath, Instant now) {
    StepRow step = state.live(lease, now);
    Elections.requireDeclared(step.spec, lease, surfacePath);
    String key = Keys.idempotencyKey(lease.runId(), lease.stepId());
    Election e = step.elections.get(surfacePath);
    return switch (e == null
        ? Elections.Decision.ELECT
        : Elections.decide(e.attempt, e.confirmed, lease.attempt())) {
      case ELECT -> {
        Election elected = new Election();
        elected.attempt = lease.attempt();
        elected.key = key;
        step.elections.put(surfacePath, elected);
        state.append(now, recorded(lease, surfacePath, key, false));
        yield new EffectElection(key, false, false, Optional.empty());
      }
      case PERFORMED -> new EffectElection(e.key, true, false, Optional.ofNullable(e.output));
      case HELD -> new EffectElection(e.key, false, false, Optional.empty());
      case TAKE_OVER -> {
        e.attempt = lease.attempt();
        state.append(now, recorded(lease, surfacePath, e.key, true));
        yield new EffectElection(e.key, false, true, Optional.empty());
      }
    };
  }

  private static JournalEntry.EffectRecorded recorded(
      LeaseToken lease, String surfacePath, String key, boolean takenOver) {
    return new JournalEntry.EffectRecorded(
        lease.runId(), lease.stepId(), lease.attempt(), surfacePath, key, takenOver);
  }

  EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, Instant now) {
    EffectElection e = recordEffect(lease, surfacePath, now);
    if (!e.deduped()) {
      confirmEffect(lease, surfacePath, output, now);
    }
    return e;
  }

  void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output, Instant now) {
    StepRow step = state.live(lease, now);
    Election e = election(step, lease, surfacePath);
    if (e.confirmed) {
      return;
    }
    e.confirmed = true;
    e.output = output.isPresent() ? output.get().deepCopy() : null;
    state.append(
        now,
        new JournalEntry.EffectConfirmed(
            lease.runId(), lease.stepId(), lease.attempt(), surfacePath, e.key, output));
  }

  /** The election this attempt holds for {@code surfacePath}; refused when it holds none. */
  static Election election(StepRow step, LeaseToken lease, String surfacePath) {
    Election e = step.elections.get(surfacePath);
    if (e == null || e.attempt != lease.attempt()) {
      throw new FlowsException(
          ErrorCode.EFFECT_NOT_RECORDED,
          "this attempt holds no election for " + surfacePath,
          lease.place(),
          "record the effect before confirming it");
    }
    return e;
  }
}
