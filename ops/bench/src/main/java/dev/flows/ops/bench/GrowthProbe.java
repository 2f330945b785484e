package dev.flows.ops.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The journal's verbs one at a time, each timed: admit a one-step run (an agent step declaring
 * memos, as a flow's root), claim it, record a memo, send its run a signal, complete it. No worker
 * runs meanwhile, so every claim takes the run just admitted.
 */
final class GrowthProbe {
  private static final WorkerId WORKER = new WorkerId("bench-growth-probe");
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private GrowthProbe() {}

  /** The verbs' names, in the order the probe calls them. */
  static final List<String> VERBS =
      List.of("admission", "claim", "memo", "signal sent", "completion");

  /**
   * Each journal's verb latencies, {@code samples} calls each after a tenth unmeasured, the
   * journals taking turns call by call (in alternating order), so a change of the machine's load
   * hits every journal alike.
   */
  static List<Map<String, Stats>> paired(List<PostgresJournal> journals, int samples) {
    Supplier<long[]> clock = () -> new long[] {System.nanoTime()};
    List<Map<String, List<long[]>>> raw = verbs(journals, samples, clock);
    List<Map<String, Stats>> out = new ArrayList<>();
    for (Map<String, List<long[]>> one : raw) {
      Map<String, Stats> stats = new LinkedHashMap<>();
      one.forEach((k, v) -> stats.put(k, Stats.of(v.stream().map(d -> d[0]).toList())));
      out.add(stats);
    }
    return out;
  }

  /**
   * The verbs {@code samples} times (after a tenth unmeasured) on each journal in turn, each call's
   * figures the change of {@code meter}'s counters across it: nanoseconds, or the database's work
   * (buffers, WAL bytes) read between the calls.
   */
  static List<Map<String, List<long[]>>> verbs(
      List<PostgresJournal> journals, int samples, Supplier<long[]> meter) {
    RunSpec spec = JournalFloor.memoRoot("growth");
    List<Map<String, List<long[]>>> t = new ArrayList<>();
    for (int j = 0; j < journals.size(); j++) {
      Map<String, List<long[]>> one = new LinkedHashMap<>();
      VERBS.forEach(f -> one.put(f, new ArrayList<>()));
      t.add(one);
    }
    // The first tenth warms the statements up, unmeasured.
    int warm = Math.max(2, samples / 10);
    for (int i = 0; i < samples + warm; i++) {
      for (int k = 0; k < journals.size(); k++) {
        int j = i % 2 == 0 ? k : journals.size() - 1 - k;
        long[][] m = once(journals.get(j), spec, i, meter);
        if (i >= warm) {
          for (int v = 0; v < VERBS.size(); v++) {
            t.get(j).get(VERBS.get(v)).add(minus(m[v + 1], m[v]));
          }
        }
      }
    }
    return t;
  }

  /** One admission, claim, memo, signal and completion; the meter read before and after each. */
  private static long[][] once(
      PostgresJournal journal, RunSpec spec, int i, Supplier<long[]> meter) {
    ClaimRequest claim =
        new ClaimRequest(WORKER, Set.of(StepKind.AGENT), 1, Duration.ofSeconds(30));
    long[][] m = new long[VERBS.size() + 1][];
    m[0] = meter.get();
    journal.admit(
        new StartRun(
            Optional.empty(), "growth:" + UUID.randomUUID(), spec, Optional.empty(), "bench"),
        Admit.queued());
    m[1] = meter.get();
    List<ClaimedAttempt> got = journal.claim(claim);
    m[2] = meter.get();
    if (got.size() != 1) {
      throw new IllegalStateException("the probe claimed " + got.size() + " attempts, not 1");
    }
    LeaseToken lease = got.get(0).lease();
    journal.recordConfirmedEffects(
        lease, List.of(new MemoEffect("/memo/1", Optional.of(JSON.numberNode(i)))));
    m[3] = meter.get();
    journal.sendSignal(lease.runId(), "probe", JSON.objectNode(), Optional.empty());
    m[4] = meter.get();
    journal.complete(lease, new StepOutcome.Succeeded(JSON.nullNode()));
    m[5] = meter.get();
    return m;
  }

  private static long[] minus(long[] after, long[] before) {
    long[] d = new long[after.length];
    for (int k = 0; k < d.length; k++) {
      d[k] = after[k] - before[k];
    }
    return d;
  }
}
