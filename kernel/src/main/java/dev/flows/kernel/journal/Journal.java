package dev.flows.kernel.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import dev.flows.kernel.schedule.ScheduleState;
import dev.flows.kernel.schedule.Schedules;
import dev.flows.kernel.schedule.TickBatch;
import dev.flows.kernel.schedule.TickDecision;
import dev.flows.kernel.schedule.Ticking;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The journal port: the only way runs, steps, leases and effects change. Every implementation must
 * pass {@code JournalContract} (kernel test-jar). All fenced verbs take a {@link LeaseToken} and
 * are refused with {@code lease_conflict} (or {@code run_terminal}) unless it names the live
 * attempt whose deadline, judged by the journal's own clock, has not passed; a refused call writes
 * nothing.
 */
public interface Journal {

  /**
   * Admits a run, the one admission verb: {@code mode} says how ({@link Admit}: queued for any
   * worker, claimed here, claimed here electing an effect, or with its end) and what it answers.
   * Idempotent by admission key: a request that meets a run under its run id or key is answered or
   * refused by {@link AdmittedRun#answer(StartRun, String, Admit)}, the rule of every mode (the
   * same admission again answers the run with {@code created=false}; another spec: {@code
   * run_admission_conflict}; a chosen run id tombstoned by an earlier cancel: {@code
   * run_terminal}), writing nothing. A run created journals {@code run.spawned}, and in a claimed
   * mode {@code step.attempt.started} with the lease deadline from the journal's clock (then {@code
   * effect.recorded} when electing, or the attempt's memos and end with its end): exactly what
   * {@code admit} queued, {@link #claim}, {@link #recordEffect} and {@link #complete} would. A
   * claimed mode notifies no claimer and is one round trip on Postgres ({@code
   * flows.start_claimed}; with its end {@code flows.start_succeeded}, group-committed, with no
   * run-end NOTIFY: a run id nobody has seen yet has no watcher elsewhere).
   */
  <R> R admit(StartRun request, Admit<R> mode);

  /**
   * Claims up to {@code capacity} ready steps (backoff passed, dependencies succeeded, run running)
   * of the requested kinds, each without waiting on rows another claimer holds. Each claim opens an
   * attempt with a lease whose deadline comes from the journal's clock, and journals {@code
   * step.attempt.started}.
   */
  List<ClaimedAttempt> claim(ClaimRequest request);

  /**
   * Notes why steps wait: each ready step (backoff passed, run running) of the request's kinds and
   * queues whose route starts with {@code routePrefix} but which the request does not {@link
   * ClaimRequest#accepts accept}, and which holds no note at its current attempt count, is noted
   * with {@code reason} and the request's worker, up to {@code capacity} steps. A note holds while
   * the step stays ready at that attempt count ({@link RunSnapshot#waitingReason}, view {@code
   * flows.runs_overview.waiting_reason}): the claim that opens its next attempt makes it stale
   * without writing anything. Never claims or changes a step. Answers how many steps were noted.
   */
  int noteUnaccepted(ClaimRequest request, String routePrefix, String reason);

  /** Renews the lease by its step's lease length from now; answers the new deadline. */
  java.time.Instant heartbeat(LeaseToken lease);

  /**
   * Elects this attempt to perform the effect at {@code surfacePath} (which the step must declare
   * in {@code surfaces.external}, else {@code effect_not_declared}). One election row per (run,
   * step, surface path).
   */
  EffectElection recordEffect(LeaseToken lease, String surfacePath);

  /** Confirms the elected effect was performed, with its result if there is one. */
  void confirmEffect(LeaseToken lease, String surfacePath, Optional<JsonNode> output);

  /**
   * Records and confirms the effect at {@code surfacePath} at once, for an effect already performed
   * in-process (a memo): one transaction where the journal can. When the effect is already
   * confirmed it writes nothing and answers the election deduped with the confirmed output, which
   * wins over {@code output}. Refused as {@link #recordEffect} is; a refused call writes nothing.
   * The default records, then confirms: correct, but two transactions.
   */
  default EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    EffectElection e = recordEffect(lease, surfacePath);
    if (!e.deduped()) {
      confirmEffect(lease, surfacePath, output);
    }
    return e;
  }

  /**
   * Journals the task the server created for this attempt's call at {@code surfacePath}, or a
   * change of its status or status message ({@code effect.task}; {@link DurableTasks}): a note that
   * changes neither writes nothing. Answers whether it wrote. Fenced as {@link #recordEffect} is;
   * refused {@code effect_not_recorded} unless this attempt holds the unconfirmed election at
   * {@code surfacePath}, {@code invalid_input} for an unknown status or another task than the
   * step's.
   */
  boolean recordTask(LeaseToken lease, String surfacePath, TaskNote task);

  /**
   * Journals that {@code tasks/cancel} was sent for the step's task {@code taskId} ({@code
   * effect.task.cancel}, with {@code reason} and {@code by}); once per task: a second note writes
   * nothing. Answers whether it wrote. Not fenced: the step's run may have ended (it is what the
   * cancel is for). Refused {@code run_not_found}, {@code step_not_found}, {@code invalid_input}
   * when the step has no such task.
   */
  boolean noteTaskCancel(RunRef runId, String stepId, String taskId, String reason, String by);

  /**
   * Up to {@code limit} tasks still running on their servers (last seen working or input_required,
   * no cancel sent) whose runs have ended, oldest task first (then run and step id): each is owed a
   * {@code tasks/cancel}.
   */
  List<TaskToCancel> tasksToCancel(int limit);

  /**
   * Records and confirms {@code memos} in order, each as {@link #recordConfirmedEffect} would, and
   * answers one election per memo, in order: one transaction for all of them where the journal can.
   * A refusal stops at the refused memo, which and every memo after it write nothing (a refusal by
   * the lease or the run's state is met by the first memo, so then nothing is written); it is
   * refused as {@link #recordConfirmedEffect} would refuse that memo. The default calls {@link
   * #recordConfirmedEffect} once per memo: correct, but one transaction each.
   */
  default List<EffectElection> recordConfirmedEffects(LeaseToken lease, List<MemoEffect> memos) {
    List<EffectElection> answers = new java.util.ArrayList<>(memos.size());
    for (MemoEffect m : memos) {
      answers.add(recordConfirmedEffect(lease, m.surfacePath(), m.output()));
    }
    return answers;
  }

  /**
   * Ends the attempt. Refused with {@code lease_conflict} after the deadline; a success is refused
   * with {@code effect_unconfirmed} while this attempt holds an unconfirmed election. A success's
   * {@link StepOutcome.Succeeded#memos} are journaled first, as {@link #recordConfirmedEffects}
   * journals them, in the completion's transaction: the step's end lists them among its effects.
   */
  CompletionAck complete(LeaseToken lease, StepOutcome outcome);

  /**
   * Cancels a run: its open child runs first (the same way, recursively), then running attempts
   * complete {@code canceled}, other open steps become canceled, the run completes {@code
   * canceled}. Idempotent. For an unknown id it leaves a tombstone.
   */
  CancelOutcome cancelRun(RunRef runId, String reason);

  /**
   * Journals {@code lease_expired} for every attempt past its deadline and schedules its retry (or
   * fails the step when iterations are used up). Safe to call from many workers at once.
   */
  List<ExpiredAttempt> expireLeases();

  /**
   * Sends a failed or parked run back to work: its failed and parked steps become ready (each gets
   * one more attempt beyond its budget per resume); journals {@code run.resumed}. Refused {@code
   * run_terminal} for a succeeded or canceled run; a running run is answered unchanged.
   */
  RunSnapshot resumeRun(RunRef runId, String by);

  /**
   * Moves a run to another version of its flow: its body step's instruction becomes {@code
   * upgrade.to()} (the same flow name, the input and inventory kept), its route follows, and {@code
   * run.upgraded} is journaled with {@code by}; the body's next attempt replays on that version.
   * Refused, writing nothing: {@code run_not_found}; {@code run_terminal} for a succeeded or
   * canceled run; {@code invalid_input} when the run has no flow body or {@code to} names another
   * flow; {@code lease_conflict} while its body is running or when the body made an attempt since
   * {@code upgrade.checkedAttempts()}.
   */
  RunSnapshot upgradeRun(RunRef runId, RunUpgrade upgrade, String by);

  /**
   * Resolves a parked step: {@code performed} present = the effect happened with that output, the
   * step succeeds with it (its open elections are confirmed); empty = it did not happen, the
   * elections are dropped and the step runs again. Journals {@code step.resolved}. Refused {@code
   * invalid_input} when the step is not parked.
   */
  RunSnapshot resolveStep(RunRef runId, String stepId, Optional<JsonNode> performed, String by);

  /**
   * Answers a step parked {@code input_required} ({@link DurableInput}): the answer is checked
   * against what the server asked (a form's schema, a URL) and journaled as {@code step.answered}
   * with the {@code inputResponses} to send; the step's open elections are dropped (the server
   * asked before acting) and it runs again, re-issuing the call with them. Its run and a parked
   * parent resume as for {@link #resolveStep}. Refused, writing nothing: {@code step_not_found},
   * {@code invalid_input} when the step is not parked for input or the answer does not fit.
   */
  RunSnapshot answerInput(RunRef runId, String stepId, InputAnswer answer, String by);

  /**
   * Removes ended run trees past the retention period, with their steps, effect elections and
   * journal entries, in one transaction, and writes the audit record of what went, by whom and when
   * ({@link PruneRequest} says which trees qualify). The one path by which journal entries are ever
   * deleted: every other UPDATE or DELETE of the journal is refused.
   */
  PruneReport prune(PruneRequest request);

  Optional<RunSnapshot> run(RunRef runId);

  /** The run's journal entries in order. */
  List<JournalRecord> entries(RunRef runId);

  /** Runs whose parent is {@code parent}. */
  List<RunRef> children(RunRef parent);

  /**
   * Blocks until work may have become ready (a NOTIFY, a run change) or the timeout passes. Answers
   * true when woken early. Spurious wake-ups are allowed.
   */
  boolean awaitWork(Duration timeout) throws InterruptedException;

  // ---- batched lease renewal and the reconciler's and claimer's timing

  /**
   * Renews many leases at once, each exactly as {@link #heartbeat} would (by its step's lease
   * length from the journal's now, fenced by run, step, attempt, lease id and a deadline not yet
   * passed by the journal's clock), in one transaction where the journal can. A lease that is not
   * renewed is answered refused with its code and nothing is written for it; the others are renewed
   * all the same. An empty collection answers {@link LeaseRenewals#none()} without touching the
   * journal. The default calls {@link #heartbeat} once per lease: correct, but one transaction
   * each.
   */
  default LeaseRenewals renewLeases(java.util.Collection<LeaseToken> leases) {
    java.util.Map<LeaseToken, java.time.Instant> renewed = new java.util.HashMap<>();
    java.util.Map<LeaseToken, dev.flows.kernel.ErrorCode> refused = new java.util.HashMap<>();
    for (LeaseToken lease : new java.util.LinkedHashSet<>(leases)) {
      try {
        renewed.put(lease, heartbeat(lease));
      } catch (dev.flows.kernel.FlowsException e) {
        switch (e.code()) {
          case LEASE_CONFLICT, RUN_TERMINAL, RUN_NOT_FOUND -> refused.put(lease, e.code());
          default -> throw e;
        }
      }
    }
    return new LeaseRenewals(renewed, refused);
  }

  /**
   * How long, from the journal's now, until the earliest lease deadline of a running attempt in a
   * run that is still going (zero when one is already past): when {@link #expireLeases} next has
   * work. Empty when no attempt is running. A read; cheap (an index on the deadline).
   */
  Optional<Duration> untilNextLeaseDeadline();

  /**
   * How long, from the journal's now, until the earliest retry backoff ({@code not_before}) still
   * ahead of a ready step that {@code request} could claim (its kinds and routes, in a running run)
   * passes. Empty when no such step waits on a backoff. A read; lets a claimer that found nothing
   * claim again when a retry comes due instead of after its whole poll interval.
   */
  Optional<Duration> untilNextClaimable(ClaimRequest request);

  // ---------------------------------------------------------------- signals

  /**
   * Sends signal {@code name} with {@code payload} to run {@code runId}: kept in the run's mailbox
   * for that name until a body's {@link #takeSignal} takes it, in the order sent, each once. A run
   * whose body is suspended is made ready at once (its body looks again). With {@code key}, a
   * second send with the same key to the same run sends nothing and answers the first ({@code
   * deduped}). Refused: {@code run_not_found} for an unknown run, {@code run_terminal} for an ended
   * one, {@code invalid_input} for a bad name or key ({@link Signals#check}).
   */
  SignalSent sendSignal(RunRef runId, String name, JsonNode payload, Optional<String> key);

  /**
   * Takes the oldest signal {@code name} not yet delivered to the lease's run, and journals it as
   * this attempt's confirmed effect at {@code surfacePath} (output {@link Signals#delivered}), in
   * one transaction: a signal is delivered once, at one place. Answers that output; empty when none
   * is pending (nothing written). When the effect at {@code surfacePath} is confirmed already,
   * answers its output and takes nothing. Fenced as {@link #recordEffect} is.
   */
  Optional<JsonNode> takeSignal(LeaseToken lease, String name, String surfacePath);

  // ---------------------------------------------------------------- inline effects

  /**
   * Confirms this attempt's election at {@code surfacePath} with {@code output} and completes the
   * attempt with {@code outcome}, in one transaction: the entries {@link #confirmEffect} then
   * {@link #complete} would journal, or nothing. Fenced as both are ({@code lease_conflict} after
   * the deadline by the journal's clock, {@code run_terminal} when the run ended, {@code
   * effect_not_recorded} without this attempt's election); a refusal writes nothing.
   */
  CompletionAck confirmAndComplete(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output, StepOutcome outcome);

  /**
   * How many callers wait for a database connection right now. A worker with room for more than one
   * claim batch takes no new work while any do, so a burst of starting attempts does not queue for
   * the pool past its connection timeout, nor ahead of the journal calls (renewals included) of the
   * attempts already running. Journals without a connection pool answer 0.
   */
  default int waitingForConnection() {
    return 0;
  }

  // ---------------------------------------------------------------- schedules

  /**
   * Applies {@code change} to its schedule by the rule of {@link Schedules#change}, at the
   * journal's now, journaling its entries ({@code schedule.created}, {@code .updated}, {@code
   * .paused}, {@code .resumed}, {@code .deleted}, {@code .ticks.requested}) in one transaction; a
   * change that changes nothing writes nothing. Answers the schedule after it (empty after a
   * delete). Refused as the rule refuses, writing nothing.
   */
  Schedules.Changed changeSchedule(ScheduleChange change);

  /** The schedule named {@code name}; empty when there is none (or it was deleted). */
  Optional<ScheduleState> schedule(String name);

  /** Every schedule, by name. */
  List<ScheduleState> schedules();

  /** The journal of schedule {@code name} in order, kept after the schedule is deleted. */
  List<ScheduleRecord> scheduleEntries(String name);

  /**
   * Up to {@code limit} schedules of flows named in {@code flows} that have ticks to decide at the
   * journal's now ({@link Ticking#due}: the database clock judges it on Postgres), earliest due
   * first.
   */
  List<ScheduleState> dueSchedules(Set<String> flows, int limit);

  /**
   * Takes schedule {@code name}'s due ticks at the journal's now, by the rule of {@link
   * Ticking#plan}, in one transaction under the schedule's lock: each tick decided once, whichever
   * worker comes first. A tick that starts admits {@code template} queued, under the tick's
   * admission key ({@link Schedules#admissionKey}), created by {@link Schedules#createdBy}, in the
   * schedule's queue ({@code schedule.tick.started}, after canceling the run started before it for
   * {@link TickDecision#CANCELED_OTHER}); the others are journaled {@code schedule.tick.skipped} or
   * {@code schedule.tick.buffered} with their decision. A last run that failed pauses a schedule
   * that pauses on failure instead ({@code schedule.paused}). Answers the entries written: none
   * when nothing was due (another worker took the ticks), or the schedule is gone or paused.
   */
  List<ScheduleEntry> takeTicks(String name, StartRun template, String by);

  /**
   * Takes the due ticks of up to {@code limit} schedules of {@code flows} at once, in one
   * transaction: the schedules {@link #dueSchedules} answers, earliest due first, except those
   * another taker holds at that moment (they are its to take: a worker never waits for another's
   * batch), each taken by the rule of {@link #takeTicks} with the run {@code templates} makes of
   * its definition; a schedule whose template is empty (this worker cannot start its flow) is held
   * and left as it is. Answers how many due schedules the batch held and the entries written.
   */
  TickBatch takeDueTicks(
      Set<String> flows,
      int limit,
      Function<ScheduleDefinition, Optional<StartRun>> templates,
      String by);

  /**
   * Watches run {@code runId}: the watch's {@link RunWatch#await} returns early once the run may
   * have changed (completed, parked, canceled, new work) after the watch was opened, so a caller
   * that opens the watch, then reads the run, misses no change. Spurious wake-ups are allowed. The
   * default watches all work ({@link #awaitWork}); journals that can tell runs apart wake only for
   * this run, and at once when the change was made through this journal instance.
   */
  default RunWatch watchRun(RunRef runId) {
    return new RunWatch() {
      @Override
      public boolean await(Duration timeout) throws InterruptedException {
        return awaitWork(timeout);
      }

      @Override
      public void close() {}
    };
  }

  /**
   * Where the partial text of running model turns is published and read (see {@link LiveText}):
   * shared by every process on the same journal. The default shares nothing.
   */
  default LiveText liveText() {
    return LiveText.NONE;
  }
}
