package dev.flows.ops.bench;

/** Why each target can miss on this engine, and what would close it; printed under the targets. */
final class Notes {
  private Notes() {}

  static final String MISSES =
      """
      ## Why a target misses, and what would close it

      First, the machine: two cores shared with other sessions (see the load average above).
      Postgres and the engine's JVM run on the same two cores, so CPU either one spends is taken
      from the other. The baseline is a one-row INSERT per transaction whose WAL flushes Postgres
      groups itself, so its rate is set by the disk and Postgres's own per-commit work; the
      engine's steps cost CPU on both sides. Compare the commits per call, which do not depend on
      load, before the throughput ratios.

      - **f.step throughput.** Built: a step's memo is written behind the body (`MemoWriter`):
        the body goes on while its attempt's writer journals the memos handed over meanwhile as one
        batch, one statement and one commit (`recordConfirmedEffects`, `memo_fast_path.sql`: fenced
        by the database clock under the step row's lock, elections inserted confirmed, both entries
        per memo), batch k+1 after batch k is acknowledged; concurrent bodies' batches are
        group-committed too (`GroupCommit`). A flow's steps cost a commit per batch, not per step,
        so the rate is bound by the statement's CPU per memo on the two shared cores, not by one
        fenced statement per step, which alone reached only 0.35-0.40x of a bare INSERT at c=1
        (pgbench, 2026-11-30): read "The journal alone" for that one-memo statement. A miss at c=16
        means the two cores are saturated by Postgres and the bodies' JVM together: batches of 16
        memos in one statement reached 16,900 memos/s on one Postgres backend and 31,500 on two
        (2026-11-30), so a database host of its own, as deployed, lifts it. The memo stays fenced
        and foreign-key checked (no memo accepted after its lease was lost; no entry for a run that
        does not exist).
      - **Added latency of durable f.mcp.** Built: a first call runs inline in the body's worker
        as two one-round-trip statements (`flows.start_claimed`, `flows.confirm_and_succeed`), with
        no claim, no worker slot and no polling; since V9 they write the same rows with fewer
        statements (the step inserted running, one journal INSERT at the end, no SQL function
        planned per call: backend CPU per call 990 -> 780 us), and the attempt is completed on
        the thread that turned the answer into its outcome. Measured per stage at c=1: the two
        statements are about three quarters of the added time, 3-4x a bare commit each, because
        every row-writing statement re-prepares its table's CHECK constraints and runs its
        triggers, foreign-key checks and index insertions for the ten rows a call writes (run,
        step, election, six journal entries) before two WAL flushes; encoding the spec and
        payloads takes about 0.1 ms of JVM time, the hand-offs send -> answer -> outcome ->
        completion -> body 0.1-0.2 ms. The MCP exchange itself is slower between journal writes
        than in the bare back-to-back loop (the HTTP POST alone 1.2-1.5 ms against 0.4-0.6 ms for
        a whole bare call), and over http the bench's server shares the JVM and the two cores.
        Two commits are the floor (the election must be durable before the call, the
        confirmation after it), so a bound of 3x one commit leaves one commit's worth for all of
        that; "The journal alone" measures the two statements back to back with no MCP server,
        body or worker (9-11x one commit on this machine): the bound is out of reach for this
        journal format here whatever the engine does. Closing it needs a thinner child record
        (fewer rows, constraints and index insertions per call, a journal-format change) or a
        disk whose commit is slower than the statements' CPU, not fewer transactions.
      - **Recovery.** A dead worker's lease is expired by another worker's reconciler, which
        sleeps until the earliest lease deadline in the journal (`untilNextLeaseDeadline`, capped
        by `reconcileInterval`); the expiry schedules the retry after its backoff (100 ms +- 20 %)
        and its NOTIFY wakes the survivor, whose claim loop then waits only until that backoff
        ends (`untilNextClaimable`). Recovery is about the remaining lease + 0.1 s plus the
        machine's scheduling delays; a miss means the survivor's threads did not get a core in
        time (see the load average), or a lease granted after the reconciler's last read was
        shorter than its sleep and no wake-up arrived before it (capped by `reconcileInterval`).
      - **Memory of waiting runs.** Built: a body that has waited `SdkConfig.suspendAfter` (10 s)
        on a running child gives its attempt back (completion reason `suspended`, step back to
        ready, no iteration used) and is replayed from the journal when the child ends (V7's
        trigger readies it); at most `SdkConfig.maxResidentWaits` (1,000) bodies wait in memory at
        once. An inline MCP call parks no thread while the server works (the answer completes
        it). Parsed specs share their MCP inventory and connection objects. One lease keeper
        renews every lease of the worker in one write per tick. What a waiting run still holds:
        its call's lease, attempt and spec, and the MCP client's pending request (Reactor
        operators and timers): ~6 KiB live per run. RSS then depends on how much heap the JVM
        keeps: with its defaults G1 keeps what it grew during the ramp (a quarter of RAM at most),
        so `flows worker` starts with `ops/worker.jvmopts` (max heap 512 MiB, heap within ~25 % of
        the live set after a collection, a collection every 5 s when idle, 64 MiB code cache), and this bench's
        worker does too. Renewal cost: one statement per period renews every lease
        (20,000 rows here, ~0.5 s). It used to join two CTEs to each other; once the prepared
        statement went to a generic plan (an unnested array estimated at 100 rows) both joins were
        nested loops, quadratic in the leases: 16-18 s on CPU for 20,000, seen in
        `pg_stat_activity`, and in three runs every call's lease was lost locally before the answer
        came (fencing held: the calls were retried under their idempotency keys). Every join now
        goes to a table by its key; the lease-expired column shows what a run lost. A worker also
        claims at most `claimBatch` (64) attempts at once and none while callers queue for a
        connection: under overload that cut the ramp's connection timeouts from ~5,000 to ~400.
      """;
}
