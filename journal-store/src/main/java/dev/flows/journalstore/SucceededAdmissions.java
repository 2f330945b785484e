package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.lifecycle.Lifecycle;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.Routes;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepSpec;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * An admission with its end ({@code Admit.WithItsEnd}) with group commit: the runs that concurrent
 * starters admit together with their end ({@code flows.start_succeeded}) are written by one
 * statement in autocommit, so what Postgres pays per statement and per commit is shared by the
 * batch, and each starter is answered for its own run. A batch that fails is written again run by
 * run, so one run's refusal is that run's alone.
 */
final class SucceededAdmissions {
  private static final PositionalSql START_SUCCEEDED =
      PositionalSql.of(Sql.text("start_succeeded"));

  // The entries such a run leaves, as JournalEntry.type() names them.
  private static final String RUN_SPAWNED = "run.spawned";
  private static final String ATTEMPT_STARTED = "step.attempt.started";
  private static final String EFFECT_RECORDED = "effect.recorded";
  private static final String EFFECT_CONFIRMED = "effect.confirmed";
  private static final String STEP_COMPLETED = "step.completed";
  private static final String RUN_COMPLETED = "run.completed";

  private final JournalDb db;
  private final GroupCommit<Call, Answer> writes;

  SucceededAdmissions(JournalDb db, JournalStoreConfig.GroupCommitLimits limits) {
    this.db = db;
    this.writes = new GroupCommit<>(this::write, limits.maxBatch(), limits.maxInFlight());
  }

  /**
   * One run as the statement takes it, every value encoded on the starter's thread: its journal
   * entries in journal order (their types and payloads; the function adds the lease deadline).
   */
  private record Call(
      ClaimedAdmission admission,
      String stepSpec,
      StoredFunctionVerbs.SuccessEncoded end,
      List<MemoEffects.MemoCall> memos,
      List<String> entryTypes,
      List<String> payloads) {
    static Call of(ClaimedAdmission admission, StepOutcome.Succeeded ok) {
      JsonNode output = ok.output() == null ? NullNode.getInstance() : ok.output();
      LeaseToken lease = admission.attempt().lease();
      String key = admission.attempt().idempotencyKey();
      List<MemoEffects.MemoCall> memos = MemoEffects.encoded(lease, key, ok.memos());
      StoredFunctionVerbs.SuccessEncoded end =
          StoredFunctionVerbs.SuccessEncoded.of(
              lease,
              output,
              memos.stream()
                  .map(m -> new JournalEntry.EffectRef(m.surfacePath(), m.idempotencyKey()))
                  .toList());
      List<String> types = new ArrayList<>(4 + 2 * memos.size());
      List<String> payloads = new ArrayList<>(4 + 2 * memos.size());
      types.add(RUN_SPAWNED);
      payloads.add(admission.spawned());
      types.add(ATTEMPT_STARTED);
      payloads.add(admission.started());
      for (MemoEffects.MemoCall m : memos) {
        types.add(EFFECT_RECORDED);
        payloads.add(m.recordedPayload());
        types.add(EFFECT_CONFIRMED);
        payloads.add(m.confirmedPayload());
      }
      types.add(STEP_COMPLETED);
      payloads.add(end.completed());
      types.add(RUN_COMPLETED);
      payloads.add(end.runCompleted());
      return new Call(
          admission,
          EntryCodec.text(RunSpecJson.writeStep(admission.attempt().step())),
          end,
          memos,
          types,
          payloads);
    }
  }

  /** What the statement answered for one run, or why its write failed. */
  private sealed interface Answer {
    record Written(String outcome, String existingRunId) implements Answer {}

    record Refused(RuntimeException failure) implements Answer {}
  }

  /**
   * The run admitted already claimed by the admission's worker and its attempt ended with {@code
   * ok}, each row written once in its final state; empty, having written nothing, when the run id
   * or admission key had admitted a run already (the caller answers or refuses the run met).
   */
  Optional<CompletionAck> admit(ClaimedAdmission admission, StepOutcome.Succeeded ok) {
    return switch (writes.submit(Call.of(admission, ok))) {
      case Answer.Refused r -> throw r.failure();
      case Answer.Written w when w.outcome().equals("ok") -> {
        recordTransitions(admission.attempt().step());
        yield Optional.of(
            new CompletionAck(
                CompletionReason.SUCCESS,
                Disposition.STEP_DONE,
                Optional.empty(),
                RunStatus.SUCCEEDED));
      }
      case Answer.Written w -> Optional.empty();
    };
  }

  /** The rows were written once, in their final state: the transitions they stand for. */
  private void recordTransitions(StepSpec step) {
    StepStatus ready = Lifecycle.created(step);
    db.transitions().stepsMade(StepTransition.CLAIMED, ready, StepStatus.RUNNING, 1);
    db.transitions()
        .stepsMade(StepTransition.COMPLETED_SUCCESS, StepStatus.RUNNING, StepStatus.SUCCEEDED, 1);
    db.transitions().runMade(RunTransition.SPAWNED, Optional.empty(), RunStatus.RUNNING);
    db.transitions()
        .runMade(
            RunTransition.ALL_STEPS_SUCCEEDED, Optional.of(RunStatus.RUNNING), RunStatus.SUCCEEDED);
  }

  private List<Answer> write(List<Call> calls) {
    try {
      return writeTogether(calls);
    } catch (RuntimeException e) {
      if (calls.size() == 1) {
        return List.of(new Answer.Refused(e));
      }
      List<Answer> alone = new ArrayList<>(calls.size());
      for (Call call : calls) {
        try {
          alone.add(writeTogether(List.of(call)).getFirst());
        } catch (RuntimeException f) {
          alone.add(new Answer.Refused(f));
        }
      }
      return alone;
    }
  }

  private List<Answer> writeTogether(List<Call> calls) {
    List<MemoEffects.MemoCall> memos = new ArrayList<>();
    List<Integer> memoRuns = new ArrayList<>();
    for (int k = 0; k < calls.size(); k++) {
      for (MemoEffects.MemoCall m : calls.get(k).memos()) {
        memos.add(m);
        memoRuns.add(k + 1);
      }
    }
    Answer[] answers = new Answer[calls.size()];
    db.autocommitRows(
        START_SUCCEEDED,
        (sql, ps) -> {
          bindRuns(sql, ps, calls);
          bindAttempts(sql, ps, calls);
          bindMemos(sql, ps, memos, memoRuns);
          bindEntries(sql, ps, calls);
          sql.bind(ps, "now", db.clock());
        },
        rs ->
            answers[rs.getInt("run") - 1] =
                new Answer.Written(rs.getString("outcome"), rs.getString("existing_run_id")));
    for (int k = 0; k < answers.length; k++) {
      if (answers[k] == null) {
        throw new IllegalStateException(
            "flows.start_succeeded answered nothing for run " + (k + 1));
      }
    }
    return List.of(answers);
  }

  /** The runs' admission rows, one array element per run. */
  private static void bindRuns(PositionalSql sql, PreparedStatement ps, List<Call> calls)
      throws SQLException {
    sql.bind(ps, "runIds", text(calls, c -> c.admission().runId().value()));
    sql.bind(ps, "names", text(calls, c -> c.admission().request().spec().name()));
    sql.bind(
        ps,
        "parentRunIds",
        text(calls, c -> c.admission().request().parentRunId().map(RunRef::value).orElse(null)));
    sql.bind(ps, "admissionKeys", text(calls, c -> c.admission().request().admissionKey()));
    sql.bind(ps, "specs", text(calls, c -> c.admission().spec()));
    sql.bind(ps, "specHashes", text(calls, c -> c.admission().specHash()));
    sql.bind(ps, "createdBy", text(calls, c -> c.admission().request().createdBy()));
    sql.bind(
        ps,
        "rerunOf",
        text(calls, c -> c.admission().request().rerunOf().map(RunRef::value).orElse(null)));
    sql.bind(ps, "queues", text(calls, c -> c.admission().request().queue()));
  }

  /** Each run's one step, its claimed attempt and its end, one array element per run. */
  private static void bindAttempts(PositionalSql sql, PreparedStatement ps, List<Call> calls)
      throws SQLException {
    sql.bind(ps, "stepIds", text(calls, c -> c.admission().attempt().step().id()));
    sql.bind(ps, "kinds", text(calls, c -> c.admission().attempt().step().kind().wire()));
    sql.bind(ps, "routes", text(calls, c -> Routes.of(c.admission().attempt().step())));
    sql.bind(
        ps,
        "maxIterations",
        calls.stream().mapToInt(c -> c.admission().attempt().step().maxIterations()).toArray());
    sql.bind(ps, "stepSpecs", text(calls, Call::stepSpec));
    sql.bind(
        ps, "leaseMs", calls.stream().mapToLong(c -> c.admission().attempt().leaseMs()).toArray());
    sql.bind(ps, "keys", text(calls, c -> c.admission().attempt().idempotencyKey()));
    sql.bind(ps, "stepOutputs", text(calls, c -> c.end().stepOutput()));
  }

  /** Every run's entries, run after run, each with the 1-based run it belongs to. */
  private static void bindEntries(PositionalSql sql, PreparedStatement ps, List<Call> calls)
      throws SQLException {
    List<Integer> runs = new ArrayList<>();
    List<String> types = new ArrayList<>();
    List<String> payloads = new ArrayList<>();
    for (int k = 0; k < calls.size(); k++) {
      Call call = calls.get(k);
      for (int i = 0; i < call.entryTypes().size(); i++) {
        runs.add(k + 1);
      }
      types.addAll(call.entryTypes());
      payloads.addAll(call.payloads());
    }
    sql.bind(ps, "entryRuns", runs.stream().mapToInt(Integer::intValue).toArray());
    sql.bind(ps, "entryTypes", types.toArray(String[]::new));
    sql.bind(ps, "payloads", payloads.toArray(String[]::new));
  }

  /** The memos the runs' attempts recorded, each with the 1-based run it belongs to. */
  private static void bindMemos(
      PositionalSql sql,
      PreparedStatement ps,
      List<MemoEffects.MemoCall> memos,
      List<Integer> memoRuns)
      throws SQLException {
    sql.bind(ps, "memoRuns", memoRuns.stream().mapToInt(Integer::intValue).toArray());
    sql.bind(ps, "surfacePaths", text(memos, MemoEffects.MemoCall::surfacePath));
    sql.bind(ps, "outputs", text(memos, m -> m.output().orElse(null)));
  }

  /** A Java array, bound as is (see {@link MemoEffects}). */
  private static <T> String[] text(List<T> items, Function<T, String> value) {
    String[] values = new String[items.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = value.apply(items.get(i));
    }
    return values;
  }
}
