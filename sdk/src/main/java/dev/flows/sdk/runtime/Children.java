package dev.flows.sdk.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.RunWatch;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.ChildFailedException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The child runs of one body attempt and how the body waits for them: one ({@code call}, {@code
 * Pending.get}), every one of several ({@code f.all}) or the first of several ({@code f.any}). A
 * wait is woken by the children's completions (at once when this process completed them, by NOTIFY
 * when another worker did), with {@code childPoll} as the fallback between looks; past the patience
 * it gives the attempt back awaiting every child still open.
 */
final class Children {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final Journal journal;
  private final SdkConfig config;
  private final InstantSource clock;
  private final ResidentWaits resident;
  private final UnaryOperator<SuspendSignal> suspend;

  /** The memo barrier, before a cancel another party sees. */
  private final Runnable memosWritten;

  /** Every child of the run (read at the start, or admitted since), in admission order. */
  private final Set<RunRef> known;

  /** Children this attempt saw end: the end of the body need not look at them again. */
  private final Set<RunRef> settled = new HashSet<>();

  /** The snapshots of children seen ended, so answering their result reads nothing more. */
  private final Map<RunRef, RunSnapshot> ended = new HashMap<>();

  /** Children this attempt cancelled because no worker claimed them in time. */
  private final Map<RunRef, ChildFailedException> undispatched = new HashMap<>();

  Children(
      Journal journal,
      RunRef root,
      SdkConfig config,
      InstantSource clock,
      ResidentWaits resident,
      UnaryOperator<SuspendSignal> suspend,
      boolean firstAttempt,
      Runnable memosWritten) {
    this.memosWritten = memosWritten;
    this.journal = journal;
    this.config = config;
    this.clock = clock;
    this.resident = resident;
    this.suspend = suspend;
    // Only the body's attempts start its run's children: before attempt 1 there are none.
    this.known = firstAttempt ? new LinkedHashSet<>() : new LinkedHashSet<>(journal.children(root));
  }

  /** The run's children, kept current: {@link BodyMemos} reads it. */
  Set<RunRef> known() {
    return known;
  }

  void admitted(RunRef child) {
    known.add(child);
  }

  /** A child that ended with the result its caller already has (an inline call). */
  void settled(RunRef child) {
    settled.add(child);
  }

  /**
   * What a body waits on: one child run ({@link Issued}), or a call that may start further runs (a
   * flow call with a policy, {@link FlowAttempts}).
   */
  sealed interface Awaited permits Issued, FlowAttempts {
    /** Looks again (which may cancel or start a run); answers whether it ended. */
    boolean ended(Children children);

    /** The runs to watch while it has not ended. */
    Set<RunRef> runs();

    /** When to look again even if no run it waits on ended (a deadline, a retry's due time). */
    Optional<Instant> wakeAt();

    /** Whether a run it waits on was not claimed yet: bounded by the dispatch deadline. */
    boolean unclaimed(Children children);

    /**
     * Whether what it waits on gave its own attempt back (a call's task polled by durable timers):
     * nothing will end soon, so waiting in memory would only hold the body's slot and thread.
     */
    default boolean dormant(Children children) {
      return false;
    }

    /** Its result once it ended: the child's output, or its failure thrown. */
    JsonNode result(Children children);
  }

  /** A child issued at a position; {@code began}: when, for its dispatch deadline. */
  record Issued(RunRef run, Instant began, String call) implements Awaited {
    @Override
    public boolean ended(Children children) {
      return children.settled.contains(run) || children.look(this);
    }

    @Override
    public Set<RunRef> runs() {
      return Set.of(run);
    }

    @Override
    public Optional<Instant> wakeAt() {
      return Optional.empty();
    }

    @Override
    public boolean unclaimed(Children children) {
      return children.attempts(run) == 0;
    }

    @Override
    public boolean dormant(Children children) {
      return children.dormant.contains(run);
    }

    @Override
    public JsonNode result(Children children) {
      return children.resultOf(this);
    }
  }

  /**
   * Waits for one call with {@code patience} (the caller holds a resident place when it is more
   * than zero) and answers its result.
   */
  JsonNode await(Awaited call, Duration patience) {
    awaitEnded(List.of(call), false, patience);
    return call.result(this);
  }

  /** Waits for one call, taking a resident place while it waits in memory. */
  JsonNode await(Awaited call) {
    awaitEnded(List.of(call), false);
    return call.result(this);
  }

  /**
   * Waits until every call ({@code any} false) or one ({@code any} true) ended (or is parked), in
   * memory while a resident place is free; answers the ended ones in the order given.
   */
  List<Awaited> awaitEnded(List<? extends Awaited> calls, boolean any) {
    boolean inMemory = resident.tryEnter();
    try {
      return awaitEnded(calls, any, inMemory ? config.suspendAfter() : Duration.ZERO);
    } finally {
      if (inMemory) {
        resident.leave();
      }
    }
  }

  private List<Awaited> awaitEnded(List<? extends Awaited> calls, boolean any, Duration patience) {
    Set<Awaited> distinct = new LinkedHashSet<>(calls);
    Set<RunRef> watched = Set.of();
    RunWatch watch = null;
    Instant suspendAt = clock.instant().plus(patience);
    try {
      while (true) {
        // Watched before looking, so an end between the look and the wait is not missed.
        Set<RunRef> all = runsOf(distinct);
        if (watch == null || !all.equals(watched)) {
          if (watch != null) {
            watch.close();
          }
          watched = all;
          watch = watch(all);
        }
        List<Awaited> done = new ArrayList<>();
        Set<RunRef> open = new LinkedHashSet<>();
        boolean unclaimed = false;
        boolean dormant = true;
        Optional<Instant> wake = Optional.empty();
        for (Awaited c : distinct) {
          if (c.ended(this)) {
            done.add(c);
          } else {
            open.addAll(c.runs());
            unclaimed |= c.unclaimed(this);
            dormant &= c.dormant(this);
            wake = earliest(wake, c.wakeAt());
          }
        }
        if (any ? !done.isEmpty() : done.size() == distinct.size()) {
          return done;
        }
        if (!runsOf(distinct).equals(watched)) {
          continue; // a call started another run: watch it too before waiting
        }
        // Only once every open child was claimed: an unclaimed one is bounded by the dispatch
        // deadline, which a suspended body could not enforce. Children that all gave their
        // attempts back are not waited for in memory at all.
        if (!unclaimed && (dormant || !clock.instant().isBefore(suspendAt))) {
          throw suspend.apply(suspension(open, wake));
        }
        try {
          watch.await(pollWait(unclaimed, suspendAt, wake));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw interrupted(open);
        }
      }
    } finally {
      if (watch != null) {
        watch.close();
      }
    }
  }

  /** The body suspends on {@code open} children, rechecked by the earliest retry due. */
  private SuspendSignal suspension(Set<RunRef> open, Optional<Instant> wake) {
    Duration recheck = config.suspendRecheck();
    if (wake.isPresent() && remaining(wake.get()).compareTo(recheck) < 0) {
      recheck = atLeastOneMs(remaining(wake.get()));
    }
    return new SuspendSignal(
        new StepOutcome.Suspended(open, Set.of(), recheck),
        open.isEmpty()
            ? "a retry due " + wake.map(Instant::toString).orElse("now")
            : open.size() == 1 ? "child run " + open.iterator().next() : open.size() + " runs");
  }

  /** A child poll, cut short by the suspension deadline (once all are claimed) or a retry due. */
  private Duration pollWait(boolean unclaimed, Instant suspendAt, Optional<Instant> wake) {
    Duration wait = config.childPoll();
    if (!unclaimed && remaining(suspendAt).compareTo(wait) < 0) {
      wait = remaining(suspendAt);
    }
    if (wake.isPresent() && remaining(wake.get()).compareTo(wait) < 0) {
      wait = atLeastOneMs(remaining(wake.get()));
    }
    return wait;
  }

  private static FlowsException interrupted(Set<RunRef> open) {
    return new FlowsException(
        ErrorCode.LEASE_CONFLICT,
        "attempt interrupted while waiting for " + open,
        open.isEmpty() ? "a retry" : open.iterator().next().value(),
        "the journal re-drives the run");
  }

  private static Set<RunRef> runsOf(Set<Awaited> calls) {
    Set<RunRef> runs = new LinkedHashSet<>();
    calls.forEach(c -> runs.addAll(c.runs()));
    return runs;
  }

  private static Optional<Instant> earliest(Optional<Instant> a, Optional<Instant> b) {
    if (a.isEmpty()) {
      return b;
    }
    return b.filter(x -> x.isBefore(a.get())).or(() -> a);
  }

  private static Duration atLeastOneMs(Duration d) {
    return d.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : d;
  }

  private final Map<RunRef, Integer> attempts = new HashMap<>();

  /** Children whose step was last seen given back ({@code suspended}) and ready again later. */
  private final Set<RunRef> dormant = new HashSet<>();

  int attempts(RunRef run) {
    return attempts.getOrDefault(run, 0);
  }

  /** Reads one child: answers whether it ended (or is parked, or was cancelled undispatched). */
  boolean look(Issued c) {
    RunSnapshot s = journal.run(c.run()).orElseThrow();
    StepSnapshot step = s.steps().getFirst();
    attempts.put(c.run(), step.attempts());
    if (step.status() == StepStatus.READY
        && step.lastReason().equals(Optional.of(CompletionReason.SUSPENDED))) {
      dormant.add(c.run());
    } else {
      dormant.remove(c.run());
    }
    if (s.status().terminal()) {
      settled.add(c.run());
      ended.put(c.run(), s);
      return true;
    }
    if (s.status() == RunStatus.PARKED) {
      return true;
    }
    if (step.attempts() == 0
        && clock.instant().isAfter(c.began().plus(config.dispatchDeadline()))) {
      memosWritten.run();
      journal.cancelRun(c.run(), "dispatch deadline passed before a worker claimed it");
      undispatched.put(
          c.run(), ChildReports.dispatchTimeout(config.dispatchDeadline(), c.run(), c.call()));
      settled.add(c.run());
      return true;
    }
    return false;
  }

  /** The result of a child that ended: its output, or its failure thrown. */
  JsonNode resultOf(Issued c) {
    ChildFailedException timedOut = undispatched.get(c.run());
    if (timedOut != null) {
      throw timedOut;
    }
    RunSnapshot s = ended.get(c.run());
    if (s == null) {
      s = journal.run(c.run()).orElseThrow();
    }
    return switch (s.status()) {
      case SUCCEEDED -> s.steps().getFirst().output().orElse(JSON.nullNode());
      case PARKED -> throw new ParkSignal(c.run());
      case FAILED, CANCELED -> throw ChildReports.failed(journal, c.run(), s, c.call());
      case RUNNING -> throw new IllegalStateException("child run " + c.run() + " has not ended");
    };
  }

  private RunWatch watch(Set<RunRef> runs) {
    // None while a retry waits out its backoff: the watch then only times out.
    if (runs.size() == 1) {
      return journal.watchRun(runs.iterator().next());
    }
    return new AnyRunWatch(runs.stream().map(journal::watchRun).toList());
  }

  /** Cancels the children still open when the root ends: no orphan runs. */
  void cancelOpen(String why) {
    // Those seen ending need no look, so a body whose calls all returned reads nothing here.
    // The body's end waited for its memos already.
    for (RunRef c : known) {
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
