package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code recordConfirmedEffect} and {@code recordConfirmedEffects} (a body's memos) with group
 * commit: the memos of concurrent bodies whose step spec is cached and declares their surfaces are
 * written together by one statement in autocommit ({@code sql/memo_fast_path.sql}), a body's batch
 * as one unit of that statement (never split across two); every other case, and every memo the
 * statement did not take, goes through {@link AttemptVerbs#recordConfirmedEffect} in order, which
 * answers or refuses exactly as a lone transaction would.
 */
final class MemoEffects {
  private static final PositionalSql MEMO_FAST_PATH = PositionalSql.of(Sql.text("memo_fast_path"));

  private final JournalDb db;
  private final StepSpecCache stepSpecs;
  private final AttemptVerbs verbs;
  private final GroupCommit<List<MemoCall>, List<Boolean>> memoWrites;

  MemoEffects(
      JournalDb db,
      StepSpecCache stepSpecs,
      AttemptVerbs verbs,
      JournalStoreConfig.GroupCommitLimits config) {
    this.db = db;
    this.stepSpecs = stepSpecs;
    this.verbs = verbs;
    this.memoWrites = new GroupCommit<>(this::writeFast, config.maxBatch(), config.maxInFlight());
  }

  EffectElection recordConfirmedEffect(
      LeaseToken lease, String surfacePath, Optional<JsonNode> output) {
    return recordConfirmedEffects(lease, List.of(new MemoEffect(surfacePath, output))).getFirst();
  }

  /**
   * The memos of one lease, in order. The statement takes all of a batch or none of it: it fences
   * every memo by the same step row and clock, and leaves the whole batch out when one of its memos
   * holds an election already; what it leaves out goes down the one-call path memo by memo, in
   * order, so what is written keeps the memos' order.
   */
  List<EffectElection> recordConfirmedEffects(LeaseToken lease, List<MemoEffect> memos) {
    List<Boolean> fast = List.of();
    Optional<StepSpecCache.Cached> cached = stepSpecs.get(lease.runId(), lease.stepId());
    if (!memos.isEmpty()
        && cached.isPresent()
        && cached.get().spec().body() instanceof StepBody.Agent a
        && memos.stream().allMatch(m -> a.declares(m.surfacePath()))) {
      String key = cached.get().idempotencyKey();
      fast =
          memoWrites.submit(
              memos.stream()
                  .map(m -> MemoCall.of(lease, m.surfacePath(), key, m.output()))
                  .toList());
    }
    List<EffectElection> answers = new ArrayList<>(memos.size());
    for (int i = 0; i < memos.size(); i++) {
      MemoEffect m = memos.get(i);
      answers.add(
          i < fast.size() && fast.get(i)
              ? new EffectElection(
                  cached.orElseThrow().idempotencyKey(), false, false, Optional.empty())
              : verbs.recordConfirmedEffect(lease, m.surfacePath(), m.output()));
    }
    return answers;
  }

  /**
   * A success with the attempt's last memos ({@link StepOutcome.Succeeded#memos}): one statement
   * when the step spec is cached and declares every memo's surface, the surfaces are distinct and
   * no election of theirs holds yet; else the memos go down {@link #recordConfirmedEffects} and the
   * success follows, as two transactions.
   */
  CompletionAck succeedAfter(
      LeaseToken lease, StepOutcome.Succeeded ok, StoredFunctionVerbs oneTrip) {
    List<MemoEffect> memos = ok.memos();
    Optional<StepSpecCache.Cached> cached = stepSpecs.get(lease.runId(), lease.stepId());
    if (cached.isPresent() && carriable(cached.get().spec(), memos)) {
      Optional<CompletionAck> ack =
          oneTrip.succeedAfterMemos(lease, ok, binds(lease, cached.get().idempotencyKey(), memos));
      if (ack.isPresent()) {
        return ack.get();
      }
    }
    recordConfirmedEffects(lease, memos);
    return oneTrip.succeed(lease, ok);
  }

  /**
   * Whether one statement can journal {@code memos} for {@code step}: it declares each surface, and
   * no two memos are for one election.
   */
  static boolean carriable(StepSpec step, List<MemoEffect> memos) {
    return step.body() instanceof StepBody.Agent a
        && memos.stream().allMatch(m -> a.declares(m.surfacePath()))
        && memos.stream().map(MemoEffect::surfacePath).distinct().count() == memos.size();
  }

  /** Binds {@code memos} of {@code lease}'s attempt, their entries encoded, as arrays. */
  static JournalDb.Binder binds(LeaseToken lease, String key, List<MemoEffect> memos) {
    List<MemoCall> calls = encoded(lease, key, memos);
    return (sql, ps) -> {
      sql.bind(ps, "surfacePaths", textArray(calls, MemoCall::surfacePath));
      sql.bind(ps, "idempotencyKey", key);
      sql.bind(ps, "outputs", textArray(calls, m -> m.output().orElse(null)));
      sql.bind(ps, "recordedPayloads", textArray(calls, MemoCall::recordedPayload));
      sql.bind(ps, "confirmedPayloads", textArray(calls, MemoCall::confirmedPayload));
    };
  }

  /** {@code memos} of {@code lease}'s attempt, elected under {@code key}, their entries encoded. */
  static List<MemoCall> encoded(LeaseToken lease, String key, List<MemoEffect> memos) {
    return memos.stream().map(m -> MemoCall.of(lease, m.surfacePath(), key, m.output())).toList();
  }

  /** One call as the fast path writes it, its entries already encoded. */
  record MemoCall(
      LeaseToken lease,
      String surfacePath,
      String idempotencyKey,
      Optional<String> output,
      String recordedPayload,
      String confirmedPayload) {
    /**
     * Encodes the call's entries as {@link EntryCodec#encode} would, the output serialized once (it
     * is both the election's output and part of the confirmed entry's payload).
     */
    static MemoCall of(
        LeaseToken lease, String surfacePath, String idempotencyKey, Optional<JsonNode> output) {
      Optional<String> outputJson = output.map(EntryCodec::text);
      return new MemoCall(
          lease,
          surfacePath,
          idempotencyKey,
          outputJson,
          EntryCodec.effectRecordedPayload(
              surfacePath, idempotencyKey, false, lease.stepId(), lease.attempt()),
          EntryCodec.effectConfirmedPayload(
              surfacePath, idempotencyKey, outputJson, lease.stepId(), lease.attempt()));
    }
  }

  /**
   * Writes a batch of units (each one lease's memos) with one statement and answers, per memo of
   * each unit, whether it took the fast path. Of two memos for one election (run, step, surface)
   * only the first is sent: the statement could not tell them apart (both would match the one
   * election it inserts, and both would be journaled); the others go down the one-call path, which
   * answers them exactly.
   */
  private List<List<Boolean>> writeFast(List<List<MemoCall>> units) {
    List<MemoCall> calls = new ArrayList<>();
    units.forEach(calls::addAll);
    int[] sentAt = firstPerElection(calls);
    List<MemoCall> sent = new ArrayList<>(sentAt.length);
    for (int i : sentAt) {
      sent.add(calls.get(i));
    }
    Boolean[] fast = new Boolean[calls.size()];
    Arrays.fill(fast, Boolean.FALSE);
    db.autocommitRows(
        MEMO_FAST_PATH,
        (sql, ps) -> {
          sql.bind(ps, "runIds", textArray(sent, m -> m.lease().runId().value()));
          sql.bind(ps, "stepIds", textArray(sent, m -> m.lease().stepId()));
          sql.bind(ps, "attempts", sent.stream().mapToInt(m -> m.lease().attempt()).toArray());
          sql.bind(ps, "leaseIds", textArray(sent, m -> m.lease().leaseId()));
          sql.bind(ps, "surfacePaths", textArray(sent, MemoCall::surfacePath));
          sql.bind(ps, "idempotencyKeys", textArray(sent, MemoCall::idempotencyKey));
          sql.bind(ps, "outputs", textArray(sent, m -> m.output().orElse(null)));
          sql.bind(ps, "recordedPayloads", textArray(sent, MemoCall::recordedPayload));
          sql.bind(ps, "confirmedPayloads", textArray(sent, MemoCall::confirmedPayload));
          sql.bind(ps, "now", db.clock());
        },
        rs -> fast[sentAt[rs.getInt(1) - 1]] = Boolean.TRUE);
    List<List<Boolean>> answers = new ArrayList<>(units.size());
    int from = 0;
    for (List<MemoCall> unit : units) {
      answers.add(Arrays.asList(fast).subList(from, from + unit.size()));
      from += unit.size();
    }
    return answers;
  }

  /**
   * The indexes of {@code calls} to send: every call but those for an election an earlier call of
   * the batch names (a body's memo positions are distinct, so almost always all of them).
   */
  private static int[] firstPerElection(List<MemoCall> calls) {
    record Election(RunRef runId, String stepId, String surfacePath) {}
    Set<Election> seen = new HashSet<>();
    int[] first = new int[calls.size()];
    int n = 0;
    for (int i = 0; i < calls.size(); i++) {
      MemoCall m = calls.get(i);
      if (calls.size() == 1
          || seen.add(new Election(m.lease().runId(), m.lease().stepId(), m.surfacePath()))) {
        first[n++] = i;
      }
    }
    return Arrays.copyOf(first, n);
  }

  /**
   * A Java array, bound as is: the driver sends {@code String[]} and {@code int[]} as binary arrays
   * without {@code createArrayOf}'s type-catalog lookups and array object.
   */
  private static String[] textArray(List<MemoCall> calls, Function<MemoCall, String> value) {
    String[] values = new String[calls.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = value.apply(calls.get(i));
    }
    return values;
  }
}
