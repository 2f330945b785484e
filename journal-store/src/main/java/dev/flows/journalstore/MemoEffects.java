package dev.flows.journalstore;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunId;
import dev.flows.kernel.spec.StepBody;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code recordConfirmedEffect} (a body's memo) with group commit: the calls of concurrent bodies
 * whose step spec is cached and declares the surface are written together by one statement in
 * autocommit ({@code sql/memo_fast_path.sql}); every other case, and every call the statement did
 * not take, goes through {@link AttemptVerbs#recordConfirmedEffect}, which answers or refuses
 * exactly as a lone transaction would.
 */
final class MemoEffects {
  private static final PositionalSql MEMO_FAST_PATH = PositionalSql.of(Sql.text("memo_fast_path"));

  private final JournalDb db;
  private final StepSpecCache stepSpecs;
  private final AttemptVerbs verbs;
  private final GroupCommit<MemoCall, Boolean> memoWrites;

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
    Optional<StepSpecCache.Cached> cached = stepSpecs.get(lease.runId(), lease.stepId());
    if (cached.isPresent()
        && cached.get().spec().body() instanceof StepBody.Agent a
        && a.declares(surfacePath)) {
      MemoCall call = MemoCall.of(lease, surfacePath, cached.get().idempotencyKey(), output);
      if (memoWrites.submit(call)) {
        return new EffectElection(call.idempotencyKey(), false, false, Optional.empty());
      }
    }
    return verbs.recordConfirmedEffect(lease, surfacePath, output);
  }

  /** One call as the fast path writes it, its entries already encoded. */
  private record MemoCall(
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
   * Writes a batch with one statement and answers, per call, whether it took the fast path. Of two
   * calls for one election (run, step, surface) only the first is sent: the statement could not
   * tell them apart (both would match the one election it inserts, and both would be journaled);
   * the others go down the one-call path, which answers them exactly.
   */
  private List<Boolean> writeFast(List<MemoCall> calls) {
    int[] sentAt = firstPerElection(calls);
    int n = sentAt.length;
    List<MemoCall> sent = new ArrayList<>(n);
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
    return Arrays.asList(fast);
  }

  /**
   * The indexes of {@code calls} to send: every call but those for an election an earlier call of
   * the batch names (a body's memo positions are distinct, so almost always all of them).
   */
  private static int[] firstPerElection(List<MemoCall> calls) {
    record Election(RunId runId, String stepId, String surfacePath) {}
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
