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

      - **f.step throughput.** Built: the memo's success path is one statement (fence by the
        database clock, election inserted confirmed, both entries; `memo_fast_path.sql`), and
        concurrent runs' memos are group-committed, one statement and one transaction per batch
        (`GroupCommit`; a lone caller writes its own batch on its own thread, no hand-off), with
        the payloads written as text once. Where a step's time goes at c=1 (measured with
        pg_stat_statements, perf on the backend running the same statement under pgbench, and
        timers around the JDBC call): the JDBC round trip is ~90% of the memo call. On the server
        the statement executes in ~110-135 us against ~8 us for the baseline's INSERT, and the
        backend spends ~230-270 us of CPU per memo transaction against ~60-90 us: about a quarter
        is the commit's WAL flush (the baseline pays it too), ~14% setting up the plan's nodes,
        ~9% CHECK constraints (Postgres re-reads each CHECK expression per statement), ~7% the
        foreign-key triggers, the rest the three rows, their indexes and the step-row lock; WAL
        per memo is 11 records, 1.6 kB (13 and 1.9 kB before V8 dropped an unused journal index).
        The JVM adds ~25-30 us around the call (JSON, spec cache, pool) and the body's own step
        code ~10-20 us; C2 was still compiling tens of ms per second during measured windows.
        Per-run work (admit, claim, first renewal, replay reads, completion: four write
        transactions and a dozen more statements, 10-20 ms on this machine) is a few per cent of
        a window of 500 steps per flow. At c=4 and c=16 the engine is CPU-bound: ~240 us of
        Postgres CPU (less per memo in a batch of several, which shares the commit and the plan's
        set-up) and ~40 us of JVM CPU per step on two cores cap it at 7,000-10,000 steps/s, while
        the baseline's ~75 us per INSERT lets it reach 2-3x that. The c=16 bound leaves about
        40 us of CPU per step on two cores, roughly 7x less than a step costs, and batches stay
        small (mostly 1-3 calls). Closing it: fewer rows per memo (one journal entry for a memo's record and
        confirm is a journal-format change), per-run work in fewer statements, and a machine
        where the baseline is disk-bound rather than CPU-bound.
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
        that. Closing it needs a thinner child record (fewer rows and constraints per call, a
        journal-format change), not fewer transactions.
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
