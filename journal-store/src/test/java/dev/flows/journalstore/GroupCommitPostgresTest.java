package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig.GroupCommitLimits;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.EffectElection;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.StepKind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The group commit of {@code recordConfirmedEffect} on a real Postgres: concurrent memo effects of
 * different runs share transactions, and every caller, whichever path its call took, gets the
 * answer or refusal the one-call path gives.
 */
class GroupCommitPostgresTest {
  private static final WorkerId WORKER = new WorkerId("w-group");
  private static final Duration LEASE = Duration.ofSeconds(60);
  private static final String MEMO = "/memo/1";
  private static final int PER_CASE = 4;
  private static final int CONCURRENT_RUNS = 24;

  /** How a run stands when its concurrent call is made. */
  private enum Case {
    /** Live lease, no election: the fast path. */
    FRESH,
    /** The lease deadline passed by the database clock; no expiry has run yet. */
    LATE,
    /** The lease expired and another attempt holds the step: the call uses the old token. */
    EXPIRED,
    /** A dead attempt left an unconfirmed election; the next attempt's call takes it over. */
    TAKEN_OVER,
    /** The run was canceled. */
    CANCELED,
    /** The memo is already confirmed: the call is deduped with the first output. */
    DEDUPED,
    /** The surface is not declared by the step. */
    UNDECLARED
  }

  @Test
  void concurrentMemoEffectsInEveryStandingGetTheAnswerTheOneCallPathGives() throws Exception {
    List<Case> cases = new ArrayList<>();
    for (Case c : Case.values()) {
      for (int i = 0; i < PER_CASE; i++) {
        cases.add(c);
      }
    }
    // The reference journal caches no step spec, so every call takes the one-call path.
    Outcome reference;
    try (PostgresFixture pg = PostgresFixture.create("gc_ref", new GroupCommitLimits(8, 2, 0))) {
      reference = play(pg, cases);
    }
    Outcome batched;
    try (PostgresFixture pg =
        PostgresFixture.create("gc_batched", new GroupCommitLimits(4, 2, 1_000))) {
      batched = play(pg, cases);
    }
    for (int i = 0; i < cases.size(); i++) {
      assertThat(batched.answers().get(i))
          .as("%s #%d", cases.get(i), i)
          .isEqualTo(reference.answers().get(i));
    }
    assertThat(batched.effectEntries()).isEqualTo(reference.effectEntries());
    // Sanity of the scenario itself: each standing got the answer it is about.
    for (int i = 0; i < cases.size(); i++) {
      Object answer = batched.answers().get(i);
      switch (cases.get(i)) {
        case FRESH ->
            assertThat(answer)
                .isInstanceOfSatisfying(
                    EffectElection.class,
                    e -> {
                      assertThat(e.deduped()).isFalse();
                      assertThat(e.takenOver()).isFalse();
                    });
        case TAKEN_OVER ->
            assertThat(answer)
                .isInstanceOfSatisfying(
                    EffectElection.class, e -> assertThat(e.takenOver()).isTrue());
        case DEDUPED ->
            assertThat(answer)
                .isInstanceOfSatisfying(
                    EffectElection.class,
                    e -> assertThat(e.confirmedOutput()).contains(output("first")));
        case LATE, EXPIRED -> assertThat(answer).isEqualTo(ErrorCode.LEASE_CONFLICT);
        case CANCELED -> assertThat(answer).isEqualTo(ErrorCode.RUN_TERMINAL);
        case UNDECLARED -> assertThat(answer).isEqualTo(ErrorCode.EFFECT_NOT_DECLARED);
      }
    }
  }

  @Test
  void concurrentMemoEffectsOfManyRunsTakeFewerTransactionsThanCalls() throws Exception {
    // One flush in flight: while the first call's statement waits on a row lock held here, every
    // other call queues, and they are then written together.
    try (PostgresFixture pg =
        PostgresFixture.create("gc_count", new GroupCommitLimits(64, 1, 1_000))) {
      List<LeaseToken> tokens = new ArrayList<>();
      for (int i = 0; i < CONCURRENT_RUNS; i++) {
        tokens.add(start(pg, "count-" + i).lease());
      }
      ExecutorService pool = Executors.newFixedThreadPool(CONCURRENT_RUNS);
      try (Connection holder = DriverManager.getConnection(pg.db().jdbcUrl())) {
        holder.setAutoCommit(false);
        try (PreparedStatement lock =
            holder.prepareStatement(
                "SELECT 1 FROM flows.steps WHERE run_id = ? AND step_id = 'root' FOR UPDATE")) {
          lock.setString(1, tokens.getFirst().runId().value());
          lock.executeQuery().close();
        }
        Future<EffectElection> first =
            pool.submit(() -> pg.journal().recordConfirmedEffect(tokens.getFirst(), MEMO, out(0)));
        awaitLockWait(pg);
        List<Thread> queued = new CopyOnWriteArrayList<>();
        List<Future<EffectElection>> rest = new ArrayList<>();
        for (int i = 1; i < CONCURRENT_RUNS; i++) {
          LeaseToken token = tokens.get(i);
          int n = i;
          rest.add(
              pool.submit(
                  () -> {
                    queued.add(Thread.currentThread());
                    return pg.journal().recordConfirmedEffect(token, MEMO, out(n));
                  }));
        }
        GroupCommitTest.awaitAllWaiting(queued, CONCURRENT_RUNS - 1);
        holder.rollback();
        assertThat(first.get().deduped()).isFalse();
        for (Future<EffectElection> f : rest) {
          assertThat(f.get().deduped()).isFalse();
        }
      } finally {
        pool.shutdownNow();
      }
      // Each transaction that wrote entries is one xmin; every call journaled its pair of entries.
      assertThat(
              pg.count(
                  "SELECT count(*) FROM flows.journal_entries WHERE entry_type IN"
                      + " ('effect.recorded', 'effect.confirmed')"))
          .isEqualTo(2L * CONCURRENT_RUNS);
      long transactions =
          pg.count(
              "SELECT count(DISTINCT xmin::text) FROM flows.journal_entries WHERE entry_type IN"
                  + " ('effect.recorded', 'effect.confirmed')");
      assertThat(transactions).isLessThan(CONCURRENT_RUNS).isEqualTo(2);
      for (int i = 0; i < CONCURRENT_RUNS; i++) {
        List<JournalEntry> effects = effectEntries(pg, tokens.get(i).runId());
        assertThat(effects)
            .containsExactly(
                new JournalEntry.EffectRecorded(
                    tokens.get(i).runId(), "root", 1, MEMO, key(tokens.get(i)), false),
                new JournalEntry.EffectConfirmed(
                    tokens.get(i).runId(), "root", 1, MEMO, key(tokens.get(i)), out(i)));
      }
    }
  }

  @Test
  void twoCallsForOneElectionInOneBatchElectOnceAndTheOtherIsDeduped() throws Exception {
    try (PostgresFixture pg =
        PostgresFixture.create("gc_twice", new GroupCommitLimits(64, 1, 1_000))) {
      LeaseToken blocker = start(pg, "twice-blocker").lease();
      LeaseToken twice = start(pg, "twice").lease();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      try (Connection holder = DriverManager.getConnection(pg.db().jdbcUrl())) {
        holder.setAutoCommit(false);
        try (PreparedStatement lock =
            holder.prepareStatement(
                "SELECT 1 FROM flows.steps WHERE run_id = ? AND step_id = 'root' FOR UPDATE")) {
          lock.setString(1, blocker.runId().value());
          lock.executeQuery().close();
        }
        // The blocker's batch waits on the lock; both calls for one election queue behind it and
        // are then handed on as one batch.
        Future<EffectElection> first =
            pool.submit(() -> pg.journal().recordConfirmedEffect(blocker, MEMO, out(0)));
        awaitLockWait(pg);
        List<Thread> queued = new CopyOnWriteArrayList<>();
        List<Future<EffectElection>> same = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
          int n = i;
          same.add(
              pool.submit(
                  () -> {
                    queued.add(Thread.currentThread());
                    return pg.journal().recordConfirmedEffect(twice, MEMO, out(n));
                  }));
        }
        GroupCommitTest.awaitAllWaiting(queued, 2);
        holder.rollback();
        assertThat(first.get().deduped()).isFalse();
        EffectElection a = same.get(0).get();
        EffectElection b = same.get(1).get();
        assertThat(List.of(a.deduped(), b.deduped())).containsExactlyInAnyOrder(true, false);
        Optional<JsonNode> elected = a.deduped() ? out(2) : out(1);
        EffectElection deduped = a.deduped() ? a : b;
        assertThat(deduped.confirmedOutput()).isEqualTo(elected);
        assertThat(effectEntries(pg, twice.runId()))
            .containsExactly(
                new JournalEntry.EffectRecorded(twice.runId(), "root", 1, MEMO, key(twice), false),
                new JournalEntry.EffectConfirmed(
                    twice.runId(), "root", 1, MEMO, key(twice), elected));
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aBatchOfOneLeasesMemosIsWrittenInOrderByOneTransaction() throws Exception {
    try (PostgresFixture pg = PostgresFixture.create("gc_batch")) {
      LeaseToken lease = start(pg, "batch").lease();
      List<EffectElection> first = pg.journal().recordConfirmedEffects(lease, memos(1, 4, 0));

      assertThat(first).extracting(EffectElection::deduped).containsOnly(false);
      // The four memos' eight entries: one transaction (one xmin), in the batch's order.
      assertThat(pg.count("SELECT count(DISTINCT xmin::text) FROM flows.journal_entries" + MEMOS))
          .isEqualTo(1L);
      assertThat(confirmedPaths(pg, lease.runId()))
          .containsExactly("/memo/1", "/memo/2", "/memo/3", "/memo/4");
    }
  }

  @Test
  void aBatchWithAMemoConfirmedAlreadyAnswersItDedupedAndJournalsTheRestInOrder() throws Exception {
    try (PostgresFixture pg = PostgresFixture.create("gc_batch_dedup")) {
      LeaseToken lease = start(pg, "batch-dedup").lease();
      pg.journal().recordConfirmedEffect(lease, "/memo/3", out(30));
      List<EffectElection> answers = pg.journal().recordConfirmedEffects(lease, memos(1, 5, 0));

      assertThat(answers)
          .extracting(EffectElection::deduped)
          .containsExactly(false, false, true, false, false);
      assertThat(answers.get(2).confirmedOutput()).isEqualTo(out(30));
      assertThat(confirmedPaths(pg, lease.runId()))
          .containsExactly("/memo/3", "/memo/1", "/memo/2", "/memo/4", "/memo/5");
    }
  }

  @Test
  void aSuccessCarryingMemosJournalsThemAndEndsTheRunInOneTransaction() throws Exception {
    try (PostgresFixture pg = PostgresFixture.create("gc_success_memos")) {
      LeaseToken lease = start(pg, "success-memos").lease();
      pg.journal()
          .complete(
              lease,
              new StepOutcome.Succeeded(JsonNodeFactory.instance.textNode("done"), memos(1, 3, 0)));

      // The memos' entries, the step's end and the run's end: one transaction (one xmin).
      assertThat(
              pg.count(
                  "SELECT count(DISTINCT xmin::text) FROM flows.journal_entries WHERE entry_type"
                      + " IN ('effect.recorded', 'effect.confirmed', 'step.completed',"
                      + " 'run.completed')"))
          .isEqualTo(1L);
      assertThat(confirmedPaths(pg, lease.runId()))
          .containsExactly("/memo/1", "/memo/2", "/memo/3");
      assertThat(pg.journal().run(lease.runId()).orElseThrow().status())
          .isEqualTo(RunStatus.SUCCEEDED);
    }
  }

  private static final String MEMOS =
      " WHERE entry_type IN ('effect.recorded', 'effect.confirmed')";

  /** Memos {@code /memo/from..to}, memo i with output {@code i + offset}. */
  private static List<MemoEffect> memos(int from, int to, int offset) {
    List<MemoEffect> memos = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      memos.add(new MemoEffect("/memo/" + i, out(i + offset)));
    }
    return memos;
  }

  private static List<String> confirmedPaths(PostgresFixture pg, RunRef run) throws Exception {
    List<String> confirmed = new ArrayList<>();
    for (JournalEntry e : effectEntries(pg, run)) {
      if (e instanceof JournalEntry.EffectConfirmed c) {
        confirmed.add(c.surfacePath());
      }
    }
    return confirmed;
  }

  @Test
  void theFastPathJudgesTheLeaseByTheDeadlineAndClockOfTheDatabase() throws Exception {
    try (PostgresFixture pg = PostgresFixture.create("gc_clock")) {
      // The worker's view says the lease runs for a minute; the database says it has passed.
      ClaimedAttempt late = start(pg, "clock-late");
      pg.execute(
          "UPDATE flows.steps SET lease_deadline = clock_timestamp() - interval '1 millisecond'"
              + " WHERE run_id = '"
              + late.lease().runId().value()
              + "'");
      assertThatThrownBy(() -> pg.journal().recordConfirmedEffect(late.lease(), MEMO, out(1)))
          .isInstanceOfSatisfying(
              FlowsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.LEASE_CONFLICT));
      assertThat(effectEntries(pg, late.lease().runId())).isEmpty();
      assertThat(pg.count("SELECT count(*) FROM flows.effect_elections")).isZero();

      // The worker's view says the lease has passed; the database moved the deadline on.
      pg.journal()
          .admit(
              StartRun.of("clock-extended", Specs.run("gc", Specs.agent("root", 1, "/memo/*"))),
              Admit.queued());
      ClaimedAttempt extended =
          pg.journal()
              .claim(new ClaimRequest(WORKER, Set.of(StepKind.values()), 1, Duration.ofMillis(1)))
              .getFirst();
      pg.execute(
          "UPDATE flows.steps SET lease_deadline = clock_timestamp() + interval '1 hour'"
              + " WHERE run_id = '"
              + extended.lease().runId().value()
              + "'");
      Thread.sleep(2);
      assertThat(extended.leaseDeadline()).isBefore(java.time.Instant.now());
      EffectElection e = pg.journal().recordConfirmedEffect(extended.lease(), MEMO, out(2));
      assertThat(e.deduped()).isFalse();
      assertThat(effectEntries(pg, extended.lease().runId())).hasSize(2);
    }
  }

  // ---------------------------------------------------------------- scenario

  /**
   * Per call: its {@link EffectElection}, or the refusal's code; and every run's effect entries.
   */
  private record Outcome(List<Object> answers, Map<RunRef, List<JournalEntry>> effectEntries) {}

  /** Sets every run up in its standing, one by one, then makes all the calls at once. */
  private static Outcome play(PostgresFixture pg, List<Case> cases) throws Exception {
    PostgresJournal journal = pg.journal();
    int n = cases.size();
    Map<RunRef, Integer> index = new HashMap<>();
    List<RunRef> runs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      RunRef id = new RunRef("gc-" + i);
      journal.admit(
          new StartRun(
              Optional.of(id),
              "gc-" + i,
              Specs.run("gc", Specs.agent("root", 2, "/memo/*")),
              Optional.empty(),
              "test"),
          Admit.queued());
      runs.add(id);
      index.put(id, i);
    }
    LeaseToken[] tokens = new LeaseToken[n];
    for (ClaimedAttempt a : claim(journal, n)) {
      tokens[index.get(a.lease().runId())] = a.lease();
    }
    List<Integer> retried = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      switch (cases.get(i)) {
        case TAKEN_OVER -> {
          journal.recordEffect(tokens[i], MEMO);
          retried.add(i);
        }
        case EXPIRED -> retried.add(i);
        case CANCELED -> journal.cancelRun(runs.get(i), "test");
        case DEDUPED ->
            journal.recordConfirmedEffect(tokens[i], MEMO, Optional.of(output("first")));
        case FRESH, LATE, UNDECLARED -> {}
      }
    }
    pastDeadline(pg, retried.stream().map(runs::get).toList());
    journal.expireLeases();
    List<ClaimedAttempt> again = new ArrayList<>();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (again.size() < retried.size() && System.nanoTime() < until) {
      // The retry backoff is a few milliseconds (Specs.QUICK_RETRY).
      again.addAll(claim(journal, n));
      Thread.sleep(5);
    }
    assertThat(again).hasSize(retried.size());
    for (ClaimedAttempt a : again) {
      int i = index.get(a.lease().runId());
      if (cases.get(i) == Case.TAKEN_OVER) {
        tokens[i] = a.lease();
      }
    }
    pastDeadline(
        pg,
        java.util.stream.IntStream.range(0, n)
            .filter(i -> cases.get(i) == Case.LATE)
            .mapToObj(runs::get)
            .toList());

    CyclicBarrier gate = new CyclicBarrier(n);
    ExecutorService pool = Executors.newFixedThreadPool(n);
    List<Future<Object>> calls = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        LeaseToken token = tokens[i];
        String path = cases.get(i) == Case.UNDECLARED ? "/other" : MEMO;
        int call = i;
        calls.add(
            pool.submit(
                () -> {
                  gate.await();
                  try {
                    return (Object)
                        journal.recordConfirmedEffect(
                            token, path, Optional.of(output("second-" + call)));
                  } catch (FlowsException e) {
                    return e.code();
                  }
                }));
      }
      List<Object> answers = new ArrayList<>();
      for (Future<Object> f : calls) {
        answers.add(f.get());
      }
      Map<RunRef, List<JournalEntry>> entries = new HashMap<>();
      for (RunRef r : runs) {
        entries.put(r, effectEntries(pg, r));
      }
      return new Outcome(answers, entries);
    } finally {
      pool.shutdownNow();
    }
  }

  // ---------------------------------------------------------------- helpers

  private static ClaimedAttempt start(PostgresFixture pg, String key) {
    pg.journal()
        .admit(
            StartRun.of(key, Specs.run("gc", Specs.agent("root", 1, "/memo/*"))), Admit.queued());
    return claim(pg.journal(), 1).getFirst();
  }

  private static List<ClaimedAttempt> claim(PostgresJournal journal, int capacity) {
    return journal.claim(new ClaimRequest(WORKER, Set.of(StepKind.values()), capacity, LEASE));
  }

  private static void pastDeadline(PostgresFixture pg, List<RunRef> runs) throws Exception {
    for (RunRef r : runs) {
      pg.execute(
          "UPDATE flows.steps SET lease_deadline = clock_timestamp() - interval '1 millisecond'"
              + " WHERE run_id = '"
              + r.value()
              + "'");
    }
  }

  /** Until the first call's statement waits on the row lock this test holds. */
  static void awaitLockWait(PostgresFixture pg) throws Exception {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      if (pg.count(
              "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                  + " AND wait_event_type = 'Lock'")
          > 0) {
        return;
      }
      Thread.sleep(5);
    }
    throw new AssertionError("the first call never waited on the held row lock");
  }

  private static List<JournalEntry> effectEntries(PostgresFixture pg, RunRef run) {
    return pg.journal().entries(run).stream()
        .map(JournalRecord::entry)
        .filter(
            e ->
                e instanceof JournalEntry.EffectRecorded
                    || e instanceof JournalEntry.EffectConfirmed)
        .toList();
  }

  private static String key(LeaseToken lease) {
    return dev.flows.kernel.keys.Keys.idempotencyKey(lease.runId(), lease.stepId());
  }

  private static JsonNode output(String v) {
    return JsonNodeFactory.instance.objectNode().put("v", v);
  }

  private static Optional<JsonNode> out(int n) {
    return Optional.of(JsonNodeFactory.instance.objectNode().put("n", n));
  }
}
