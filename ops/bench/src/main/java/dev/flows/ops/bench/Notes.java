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
        (`GroupCommit`), with the payloads written as text once. What a step still costs:
        Postgres executes an election insert and two journal rows (their indexes, foreign keys and
        the step-row lock), about 0.15-0.2 ms of server time for a one-call batch, and the JVM
        about 100 us (the body on a virtual thread, the memo's JSON, the driver). The c=16 bound
        leaves about 40 us of CPU per step on two cores, roughly 5x less than a step costs, and
        batches stay small (mostly 1-3 calls): 16 bodies do not produce their next step within one
        commit. Closing it: fewer rows per memo (one journal entry for a memo's record and confirm
        is a journal-format change), per-run work (admit, claim, complete, still several
        statements each) in single statements, and a machine where the baseline is disk-bound
        rather than CPU-bound.
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
        worker does too.
      """;
}
