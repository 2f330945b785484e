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

      - **f.step throughput.** Read "The journal alone" first: at c=1 the engine reaches 0.8-1.0x
        of the memo statement sent bare by JDBC, and that statement alone misses 0.5x too:
        the c=1 miss is the statement's before it is the engine's. Built: the memo's success path is one statement (fence by the database
        clock, election inserted confirmed, both entries; `memo_fast_path.sql`), and concurrent
        runs' memos are group-committed, one statement and one transaction per batch
        (`GroupCommit`; a lone caller writes its own batch on its own thread, no hand-off), with
        the payloads written as text once. Counted with a batch counter (2026-11-30): batches
        average 1.0 memos at c=1, 2.0 at c=4 and 7.7 at c=16 (c flows settle into two cohorts
        that take turns). What the statement's parts cost (pgbench -M prepared on this machine,
        2026-11-30, each client on its own run; baseline INSERT+COMMIT 7,400-7,800/s at c=1):
        the memo statement 2,700-3,100/s (0.35-0.40x); the step-row lock alone (SELECT ... FOR
        NO KEY UPDATE, a write transaction) 6,100/s (0.81x); one journal row alone with its
        foreign key and CHECKs, unfenced, 4,500/s (0.60x), 5,800/s (0.78x) without the foreign
        key (its KEY SHARE lock writes to the run row), 6,800/s (0.92x) without the CHECKs too.
        Leaving out the `effect.recorded` entry gained nothing at c=1 (+12% at c=4); leaving out
        both foreign keys too reached 0.42x / 0.50x / 0.45x at c=1 / 4 / 16. So a memo that is
        fenced under the step row's lock and writes one foreign-key-checked row already costs
        about half the baseline's rate here: 0.5x at c=1 is out of reach for a fenced memo on
        this machine, whose commit (~0.13 ms) is so cheap that per-statement CPU dominates. On
        a disk where a commit costs a millisecond the same statement would be ~0.8x, by the
        same arithmetic. At c=4 and c=16 the engine is CPU-bound on the two shared cores: the
        journal verb alone (group commit on, no body) reaches 0.3-0.4x / ~0.5x, and the bodies'
        JVM work takes the rest. Batches of 16 memos in one statement reach 16,900 memos/s on
        one Postgres backend and 31,500 on two, above the c=16 baseline, so 1.0x at c=16 needs
        Postgres's cores not shared with the engine (a separate database host, as deployed).
        Closing it on this machine would take an unfenced or foreign-key-free memo, which gives
        up guarantees the journal exists for (no memo accepted after its lease was lost; no
        entry for a run that does not exist); we keep them.
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
