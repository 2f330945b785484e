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

/**
 * The journal's verbs one at a time, each timed: admit a one-step run (an agent step declaring
 * memos, as a flow's root), claim it, record a memo, send its run a signal, complete it. No worker
 * runs meanwhile, so every claim takes the run just admitted.
 */
final class GrowthProbe {
  private static final WorkerId WORKER = new WorkerId("bench-growth-probe");
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private GrowthProbe() {}

  static Map<String, Stats> verbs(PostgresJournal journal, int samples) {
    RunSpec spec = JournalFloor.memoRoot("growth");
    ClaimRequest claim =
        new ClaimRequest(WORKER, Set.of(StepKind.AGENT), 1, Duration.ofSeconds(30));
    Map<String, List<Long>> t = new LinkedHashMap<>();
    for (String f : List.of("admission", "claim", "memo", "completion", "signal sent")) {
      t.put(f, new ArrayList<>());
    }
    // The first tenth warms the statements up, unmeasured.
    int warm = Math.max(2, samples / 10);
    for (int i = 0; i < samples + warm; i++) {
      boolean keep = i >= warm;
      long t0 = System.nanoTime();
      journal.admit(
          new StartRun(
              Optional.empty(), "growth:" + UUID.randomUUID(), spec, Optional.empty(), "bench"),
          Admit.queued());
      long t1 = System.nanoTime();
      List<ClaimedAttempt> got = journal.claim(claim);
      long t2 = System.nanoTime();
      if (got.size() != 1) {
        throw new IllegalStateException("the probe claimed " + got.size() + " attempts, not 1");
      }
      LeaseToken lease = got.get(0).lease();
      journal.recordConfirmedEffects(
          lease, List.of(new MemoEffect("/memo/1", Optional.of(JSON.numberNode(i)))));
      long t3 = System.nanoTime();
      journal.sendSignal(lease.runId(), "probe", JSON.objectNode(), Optional.empty());
      long t4 = System.nanoTime();
      journal.complete(lease, new StepOutcome.Succeeded(JSON.nullNode()));
      long t5 = System.nanoTime();
      if (keep) {
        t.get("admission").add(t1 - t0);
        t.get("claim").add(t2 - t1);
        t.get("memo").add(t3 - t2);
        t.get("signal sent").add(t4 - t3);
        t.get("completion").add(t5 - t4);
      }
    }
    Map<String, Stats> out = new LinkedHashMap<>();
    t.forEach((k, v) -> out.put(k, Stats.of(v)));
    return out;
  }
}
