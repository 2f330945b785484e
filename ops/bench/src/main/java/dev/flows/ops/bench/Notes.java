package dev.flows.ops.bench;

/** Why each target can miss on this engine, and what would close it; printed under the targets. */
final class Notes {
  private Notes() {}

  static final String MISSES =
      """
      ## Why a target misses, and what would close it

      First, the machine: two cores shared with other sessions (see the load average above; above
      2 means processes waited for a core). The baseline is mostly disk-bound and barely notices;
      the engine's per-call cost is mostly CPU (JSON, Jdbi, several statements per transaction,
      thread hand-offs), so its ratios come out worse here than on an idle machine. Compare the
      commits per call, which do not depend on load, before the throughput ratios.

      - **f.step throughput and commits per f.step.** An `f.step` runs its body in-process and then
        records and confirms its memo in one transaction (`Journal.recordConfirmedEffect`): one
        WAL flush per step, so a single flow is bounded by the single-connection INSERT rate, less
        the work of the journal row, the entry and the lease check in that transaction. Concurrent
        flows share a pool of 10 connections, and on two shared cores the JVM's own CPU competes
        with Postgres. Reaching 1× INSERT at concurrency 16 needs group commit: a journal writer
        that batches the memo writes of concurrent runs into one transaction (each caller waits for
        the shared commit), which is not built.
      - **Commits per durable f.mcp.** A call is a child run: admission (1), claim (1), record (1),
        confirm (1), complete (1) are five writes, and the body waiting for the child polls the
        child's status every `childPoll` (200 ms) and reads it back after a wake-up, each a read
        transaction. Closing it: admit and claim the child in one transaction when the calling
        worker serves it itself (it usually does), fold record+confirm+complete into one verb for
        the success path (the election must still commit before the call, so 2–3 writes remain),
        and wake the waiting body from the child's completion NOTIFY instead of polling.
      - **Added latency of durable f.mcp.** The writes above are sequential with the call, plus the
        hop through the claim loop (NOTIFY → claim) before the child starts. The same fixes
        (fewer, merged writes; a worker executing the child it just admitted without a claim
        round trip) close it.
      - **Recovery.** A dead worker's lease is expired by another worker's reconciler, which
        sleeps until the earliest lease deadline in the journal (`untilNextLeaseDeadline`, capped
        by `reconcileInterval`); the expiry schedules the retry after its backoff (100 ms ± 20 %)
        and its NOTIFY wakes the survivor, whose claim loop then waits only until that backoff
        ends (`untilNextClaimable`). Recovery is about the remaining lease + 0.1 s plus the
        machine's scheduling delays; a miss means the survivor's threads did not get a core in
        time (see the load average), or a lease granted after the reconciler's last read was
        shorter than its sleep and no wake-up arrived before it (capped by `reconcileInterval`).
      - **Memory and renewals of waiting runs.** One lease keeper per worker renews every lease
        it holds in one `renewLeases` statement per tick (a third of the shortest lease), so the
        renewal writes per period no longer grow with the runs held; the count also includes any
        other write in the cluster during the window (autovacuum/analyze after the ramp).
        Memory: each waiting body still holds a virtual thread and polls its child; closing the
        rest needs completion wake-ups instead of polling.
      """;
}
