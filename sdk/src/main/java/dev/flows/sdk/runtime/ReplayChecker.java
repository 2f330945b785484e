package dev.flows.sdk.runtime;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.RunSpecParser;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowsError;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.regex.Matcher;

/**
 * Replays a run's journal against a flow's code without doing anything: every memo, child, wait and
 * timer is answered from the journal, and the body stops at the journal's end, before the first
 * call nothing answers (a step's body is not run, no server is asked, nothing is journaled). Says
 * whether the code makes the calls the journal holds, position by position.
 */
public final class ReplayChecker {
  private final Journal journal;
  private final FlowResolver resolver;
  private final SdkConfig config;
  private final InstantSource clock;

  /** Checks against {@code journal}; {@code resolver} names the flows a body calls as children. */
  public ReplayChecker(
      Journal journal, FlowResolver resolver, SdkConfig config, InstantSource clock) {
    this.journal = ReplayOnlyJournal.over(journal);
    this.resolver = resolver;
    this.config = config;
    this.clock = clock;
  }

  /** Replays the body of root run {@code run} as {@code flow}'s code makes it. */
  public ReplayVerdict check(RunRef run, Flow<?, ?> flow) {
    RunSnapshot snapshot = journal.run(run).orElseThrow(() -> notFound(run));
    if (!snapshot.name().equals(flow.header().name())) {
      throw new FlowsException(
          ErrorCode.INVALID_INPUT,
          "run "
              + run.value()
              + " is a run of flow "
              + snapshot.name()
              + ", not of "
              + flow.header().name(),
          "replay-check",
          "check the runs of " + snapshot.name() + " against that flow's code");
    }
    RunSpec spec = RunSpecParser.parse(snapshot.spec());
    StepSpec body = spec.steps().getFirst();
    FlowBodyInstruction instruction = FlowBodyInstruction.of((StepBody.Agent) body.body());
    int attempts = snapshot.steps().getFirst().attempts();
    // Any attempt past the first reads what the earlier ones journaled.
    LeaseToken lease = new LeaseToken(run, body.id(), Math.max(2, attempts + 1), "replay-check");
    ClaimedAttempt attempt =
        new ClaimedAttempt(lease, Instant.MAX, 0, body, "replay-check", snapshot.parentRunId());
    DurableCtx ctx =
        new DurableCtx(
            journal,
            attempt,
            flow.header(),
            new Inventory(instruction.inventory()),
            config,
            ChildStarter.QUEUED,
            Optional.empty(),
            new ResidentWaits(0),
            clock,
            resolver,
            BodyModels.none(),
            dev.flows.kernel.keys.SecretKeys.none(),
            dev.flows.kernel.journal.PayloadLimits.DEFAULTS);
    try {
      FlowTypes.run(flow, new AuthorCtx(ctx), body.input());
    } catch (ReplayOnlyJournal.JournalEnd | SuspendSignal | ParkSignal stopped) {
      return new ReplayVerdict.Compatible(run);
    } catch (Throwable t) {
      Optional<ReplayVerdict> diverged = divergence(run, t);
      if (diverged.isPresent()) {
        return diverged.get();
      }
      if (reachedEnd(t)) {
        return new ReplayVerdict.Compatible(run);
      }
      return ended(run, ctx, "the body's end (it threw " + t.getClass().getSimpleName() + ")");
    }
    return ended(run, ctx, "the body's end (it returned)");
  }

  private static FlowsException notFound(RunRef run) {
    return new FlowsException(
        ErrorCode.RUN_NOT_FOUND,
        "no run " + run.value(),
        "replay-check",
        "`flows runs list --flow NAME` lists the flow's runs");
  }

  /** The body ended: compatible unless the journal holds a call past its last one. */
  private ReplayVerdict ended(RunRef run, DurableCtx ctx, String end) {
    int next = ctx.position() + 1;
    BodyMemos memos = ctx.memos();
    if (memos.at(next).isPresent()) {
      return new ReplayVerdict.Diverges(run, next, BodyMemos.describe(memos.at(next).get()), end);
    }
    if (memos.childAt(next)) {
      return new ReplayVerdict.Diverges(
          run, next, ChildReports.describe(journal, Lowering.childId(run, next)), end);
    }
    return new ReplayVerdict.Compatible(run);
  }

  private static boolean reachedEnd(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ReplayOnlyJournal.JournalEnd || c instanceof SuspendSignal) {
        return true;
      }
    }
    return false;
  }

  private static Optional<ReplayVerdict> divergence(RunRef run, Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      boolean nondeterministic =
          (c instanceof FlowsException fe && fe.code() == ErrorCode.NONDETERMINISTIC_REPLAY)
              || (c instanceof FlowsError pe
                  && pe.code().equals(ErrorCode.NONDETERMINISTIC_REPLAY.wire()));
      if (nondeterministic) {
        Matcher m = ChildReports.NONDETERMINISTIC.matcher(String.valueOf(c.getMessage()));
        if (m.find()) {
          return Optional.of(
              new ReplayVerdict.Diverges(
                  run, Integer.parseInt(m.group(1)), m.group(2), m.group(3)));
        }
      }
    }
    return Optional.empty();
  }
}
