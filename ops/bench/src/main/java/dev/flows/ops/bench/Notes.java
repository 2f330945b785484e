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
      - **Recovery.** A dead worker's lease is expired by another worker's reconcile loop, every
        `reconcileInterval` (5 s by default); the expiry schedules the retry after its backoff
        (100 ms ± 20 %), so the NOTIFY it sends finds nothing claimable yet and the survivor claims
        on its next poll (1 s). Recovery is therefore up to remaining lease + 5 s + 1 s. A 1 s
        reconcile interval (the third row above) narrows it to about lease + 1.5 s but does not
        close it. Closing it: a reconciler that wakes at the earliest lease deadline it knows of,
        and a claim loop that, when a claim finds nothing, waits only until the earliest
        `not_before` of a ready step (or a wake-up sent when the backoff ends) rather than a full
        poll interval.
      - **Memory and renewals of waiting runs.** Every attempt renews its own lease in its own
        transaction (one write per lease per third of the lease), so the renewal cost grows with
        the runs held; each waiting body also polls its child. Closing it: one `UPDATE … WHERE
        worker_id = ? AND deadline < …` per renewal period renewing every lease the worker holds,
        and completion wake-ups instead of polling.
      """;
}
