package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.RunSpecJson;
import dev.flows.kernel.spec.StepKind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Postgres-specific behaviour of the journal, beyond the shared contract suite. Its journal is
 * judged by a test clock that the tests advance; the database clock, the production case, where a
 * test says so.
 */
class PostgresJournalTest {
  private static final WorkerId WORKER = new WorkerId("w-test");
  private static final JsonNode OUT = JsonNodeFactory.instance.objectNode().put("done", 1);
  private static final JsonNode TAIL = JsonNodeFactory.instance.arrayNode().add("last words");

  private final ManualClock clock = new ManualClock(Instant.parse("2100-01-01T00:00:00Z"));
  private PostgresFixture pg;
  private PostgresJournal journal;

  @BeforeEach
  void open() {
    pg = PostgresFixture.create("pgj", clock);
    journal = pg.journal();
  }

  @AfterEach
  void close() {
    pg.close();
  }

  /** A journal of its own judged by the database clock, as in production. */
  private static PostgresFixture databaseClock() {
    return PostgresFixture.create("pgj-db-clock");
  }

  private List<ClaimedAttempt> claim(int capacity, Duration lease) {
    return journal.claim(new ClaimRequest(WORKER, Set.of(StepKind.values()), capacity, lease));
  }

  @Test
  void withoutATestClockAClaimOpensAnAttemptWhoseDeadlineComesFromTheDatabaseClock()
      throws Exception {
    try (PostgresFixture db = databaseClock()) {
      PostgresJournal journal = db.journal();
      journal.admit(StartRun.of("k", Specs.run("one", Specs.llm("a"))), Admit.queued());
      Instant before =
          Instant.ofEpochMilli(
              db.count("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint"));
      ClaimedAttempt a =
          journal
              .claim(new ClaimRequest(WORKER, Set.of(StepKind.values()), 5, Duration.ofSeconds(30)))
              .getFirst();
      Instant after =
          Instant.ofEpochMilli(
              db.count("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint"));
      assertThat(a.leaseDeadline())
          .isBetween(before.plusSeconds(30).minusMillis(1), after.plusSeconds(30).plusMillis(1));
      assertThat(journal.untilNextLeaseDeadline().orElseThrow())
          .isPositive()
          .isLessThanOrEqualTo(Duration.ofSeconds(30));
      assertThat(journal.expireLeases()).isEmpty();
      // Past its deadline by the database clock: refused and expired, with no test clock at all.
      db.execute(
          "UPDATE flows.steps SET lease_deadline = clock_timestamp() - interval '1 millisecond'");
      assertThatThrownBy(() -> journal.heartbeat(a.lease()))
          .extracting(e -> ((FlowsException) e).code())
          .isEqualTo(ErrorCode.LEASE_CONFLICT);
      assertThat(journal.expireLeases()).extracting(e -> e.lease()).containsExactly(a.lease());
    }
  }

  @Test
  void aTestClockJudgesEveryStatementInsteadOfTheDatabaseClock() throws Exception {
    // The test clock is far ahead of the database clock: a statement judged by the database clock
    // would see every lease as live and every backoff as ahead.
    RunRef runId =
        journal
            .admit(StartRun.of("k", Specs.run("t", Specs.agent("a", 2, "/memo/*"))), Admit.queued())
            .runId();
    ClaimedAttempt a = claim(5, Duration.ofSeconds(30)).getFirst();
    assertThat(a.leaseDeadline()).isEqualTo(clock.instant().plusSeconds(30));
    assertThat(journal.entries(runId)).extracting(JournalRecord::at).containsOnly(clock.instant());
    assertThat(journal.untilNextLeaseDeadline()).contains(Duration.ofSeconds(30));
    clock.advance(Duration.ofSeconds(10));
    assertThat(journal.heartbeat(a.lease())).isEqualTo(clock.instant().plusSeconds(30));
    assertThat(journal.recordConfirmedEffect(a.lease(), "/memo/1", Optional.of(OUT)).deduped())
        .isFalse();
    clock.advance(Duration.ofSeconds(30));
    assertThat(journal.renewLeases(List.of(a.lease())).refusal(a.lease()))
        .contains(ErrorCode.LEASE_CONFLICT);
    assertThatThrownBy(() -> journal.recordConfirmedEffect(a.lease(), "/memo/2", Optional.of(OUT)))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.LEASE_CONFLICT);
    assertThat(journal.expireLeases()).extracting(e -> e.lease()).containsExactly(a.lease());
    Instant retryAt = journal.run(runId).orElseThrow().step("a").orElseThrow().notBefore();
    assertThat(retryAt).isAfterOrEqualTo(clock.instant());
    assertThat(
            journal.untilNextClaimable(
                new ClaimRequest(WORKER, Set.of(StepKind.AGENT), 1, Duration.ofSeconds(30))))
        .contains(Duration.between(clock.instant(), retryAt));
    clock.advance(Duration.between(clock.instant(), retryAt));
    ClaimedAttempt second = claim(5, Duration.ofSeconds(30)).getFirst();
    assertThat(second.lease().attempt()).isEqualTo(2);
    assertThat(journal.complete(second.lease(), new StepOutcome.Succeeded(OUT)).runStatus())
        .isEqualTo(RunStatus.SUCCEEDED);
    assertThat(journal.run(runId).orElseThrow().completedAt()).contains(clock.instant());
  }

  @Test
  void aClaimOpensAnAttemptLeasedFromTheJournalsNow() throws Exception {
    journal.admit(StartRun.of("k", Specs.run("one", Specs.llm("a"))), Admit.queued());
    Instant before = clock.instant();
    ClaimedAttempt a = claim(5, Duration.ofSeconds(30)).getFirst();
    Instant after = clock.instant();
    assertThat(a.lease().attempt()).isEqualTo(1);
    assertThat(a.leaseMs()).isEqualTo(30_000);
    assertThat(a.leaseDeadline())
        .isBetween(before.plusSeconds(30).minusMillis(1), after.plusSeconds(30).plusMillis(1));
    assertThat(a.step()).isEqualTo(Specs.llm("a"));
    assertThat(journal.run(a.lease().runId()).orElseThrow().step("a").orElseThrow().status())
        .isEqualTo(StepStatus.RUNNING);
  }

  @Test
  void everyEntryTypeReadsBackFromPostgresAsTheSameSealedRecords() {
    RunSpec spec = Specs.run("all", Specs.agent("a", 1, "/mcp/x"), Specs.llm("b", 1, List.of("a")));
    RunRef runId = journal.admit(StartRun.of("k", spec), Admit.queued()).runId();
    ClaimedAttempt a = claim(5, Duration.ofSeconds(30)).getFirst();
    journal.recordEffect(a.lease(), "/mcp/x");
    journal.confirmEffect(a.lease(), "/mcp/x", Optional.of(OUT));
    journal.complete(a.lease(), new StepOutcome.Succeeded(OUT));
    journal.cancelRun(runId, "enough");

    List<JournalEntry> entries = journal.entries(runId).stream().map(JournalRecord::entry).toList();
    assertThat(entries)
        .extracting(JournalEntry::type)
        .containsExactly(
            "run.spawned",
            "step.attempt.started",
            "effect.recorded",
            "effect.confirmed",
            "step.completed",
            "run.cancel.requested",
            "run.completed");
    var spawned = (JournalEntry.RunSpawned) entries.getFirst();
    assertThat(spawned.spec()).isEqualTo(RunSpecJson.write(spec));
    assertThat(journal.run(runId).orElseThrow().spec()).isEqualTo(RunSpecJson.write(spec));
    var completed = (JournalEntry.StepCompleted) entries.get(4);
    assertThat(completed.output()).contains(OUT);
    assertThat(completed.effects())
        .extracting(JournalEntry.EffectRef::surfacePath)
        .containsExactly("/mcp/x");
    assertThat(journal.entries(runId)).extracting(JournalRecord::seq).isSorted();
  }

  /**
   * The statements that build a payload in SQL (claim_open's step.attempt.started, the effects
   * succeed_attempt adds to step.completed, start_claimed's lease deadline) write what EntryCodec
   * writes: the same fields with the same values (instants compared as instants).
   */
  @Test
  void everyPayloadTheDatabaseBuildsHasTheFieldsAndValuesEntryCodecWrites() throws Exception {
    RunSpec spec = Specs.run("sql", Specs.agent("a", 1, "/mcp/x"), Specs.llm("b", 1, List.of("a")));
    journal.admit(StartRun.of("k1", spec), Admit.queued());
    ClaimedAttempt a = claim(5, Duration.ofSeconds(30)).getFirst();
    journal.recordEffect(a.lease(), "/mcp/x");
    journal.confirmEffect(a.lease(), "/mcp/x", Optional.of(OUT));
    journal.complete(a.lease(), new StepOutcome.Succeeded(OUT));
    var inline =
        journal.admit(
            StartRun.of("k2", Specs.run("inline", Specs.agent("call", 1, "/mcp/y"))),
            Admit.claimedHere(WORKER, Duration.ofSeconds(30)).electing("/mcp/y"));
    journal.confirmAndComplete(
        inline.attempt().lease(), "/mcp/y", Optional.of(OUT), new StepOutcome.Succeeded(OUT));

    List<List<String>> rows =
        pg.rows("SELECT run_id, entry_type, payload::text FROM flows.journal_entries ORDER BY seq");
    assertThat(rows)
        .extracting(r -> r.get(1))
        .contains("step.attempt.started", "step.completed", "effect.confirmed", "run.completed");
    for (List<String> row : rows) {
      JsonNode stored = EntryCodec.parse(row.get(2));
      JournalEntry entry = EntryCodec.decode(new RunRef(row.get(0)), row.get(1), stored);
      JsonNode written = EntryCodec.parse(EntryCodec.encode(entry).payload());
      assertThat(outputsKeptOnce(instantsParsed(stored)))
          .as(row.get(1))
          .isEqualTo(outputsKeptOnce(instantsParsed(written)));
    }
  }

  /**
   * An output kept in its election is left out of the stored entry (entries_of_run.sql puts it
   * back; the contract suite reads it whole), so the stored fields are compared without it.
   */
  private static JsonNode outputsKeptOnce(JsonNode payload) {
    var copy = (com.fasterxml.jackson.databind.node.ObjectNode) payload.deepCopy();
    copy.remove(List.of("output", "outputOf"));
    return copy;
  }

  private static JsonNode instantsParsed(JsonNode payload) {
    var copy = (com.fasterxml.jackson.databind.node.ObjectNode) payload.deepCopy();
    for (String field : List.of("leaseDeadline", "nextAttemptAt")) {
      if (copy.has(field)) {
        copy.put(field, Instant.parse(copy.get(field).asText()).toString());
      }
    }
    return copy;
  }

  @Test
  void fencedVerbsAfterExpiryAreRefusedAndLeaveTheJournalUnchanged() throws Exception {
    RunRef runId =
        journal
            .admit(StartRun.of("k", Specs.run("f", Specs.agent("a", 2, "/mcp/x"))), Admit.queued())
            .runId();
    ClaimedAttempt a = claim(1, Duration.ofMillis(2_000)).getFirst();
    journal.recordEffect(a.lease(), "/mcp/x");
    clock.advance(Duration.ofMillis(2_000));
    List<JournalRecord> before = journal.entries(runId);
    var snapshotBefore = journal.run(runId).orElseThrow();

    assertThatThrownBy(() -> journal.heartbeat(a.lease()))
        .isInstanceOf(FlowsException.class)
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.LEASE_CONFLICT);
    assertThatThrownBy(() -> journal.recordEffect(a.lease(), "/mcp/x"))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.LEASE_CONFLICT);
    assertThatThrownBy(() -> journal.confirmEffect(a.lease(), "/mcp/x", Optional.of(OUT)))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.LEASE_CONFLICT);
    assertThatThrownBy(() -> journal.complete(a.lease(), new StepOutcome.Succeeded(OUT)))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.LEASE_CONFLICT);

    assertThat(journal.entries(runId)).isEqualTo(before);
    assertThat(journal.run(runId).orElseThrow()).isEqualTo(snapshotBefore);
    assertThat(pg.count("SELECT count(*) FROM flows.effect_elections WHERE confirmed")).isZero();
  }

  /** A stand-in for the database's fence that answers {@code outcome} for every lease. */
  private void fenceAnswers(String outcome, String runStatus) throws Exception {
    pg.execute(
        "CREATE OR REPLACE FUNCTION flows.lock_live_attempt(p_run_id text, p_step_id text,"
            + " p_attempt integer, p_lease_id text, p_now timestamptz)"
            + " RETURNS TABLE (outcome text, run_status text) LANGUAGE sql AS $$ SELECT '"
            + outcome
            + "'::text, '"
            + runStatus
            + "'::text $$");
  }

  @Test
  void theVerbsComposedInJavaAreFencedByTheDatabasesOneFenceAndRefuseAsItAnswers()
      throws Exception {
    RunRef runId =
        journal
            .admit(StartRun.of("k", Specs.run("f", Specs.agent("a", 2, "/mcp/x"))), Admit.queued())
            .runId();
    ClaimedAttempt a = claim(1, Duration.ofSeconds(30)).getFirst();
    journal.recordEffect(a.lease(), "/mcp/x");
    List<JournalRecord> before = journal.entries(runId);

    fenceAnswers("lease_conflict", "running");
    assertThatThrownBy(() -> journal.heartbeat(a.lease()))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.LEASE_CONFLICT);
    assertThatThrownBy(() -> journal.confirmEffect(a.lease(), "/mcp/x", Optional.of(OUT)))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.LEASE_CONFLICT);
    fenceAnswers("run_terminal", "canceled");
    assertThatThrownBy(() -> journal.recordEffect(a.lease(), "/mcp/y"))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.RUN_TERMINAL);
    assertThatThrownBy(
            () ->
                journal.complete(
                    a.lease(), new StepOutcome.Failed(CompletionReason.WORKER_ERROR, TAIL, true)))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.RUN_TERMINAL);
    fenceAnswers("run_not_found", "running");
    assertThatThrownBy(() -> journal.heartbeat(a.lease()))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.RUN_NOT_FOUND);

    assertThat(journal.entries(runId)).isEqualTo(before);
  }

  @Test
  void anExpiredLeaseIsRetriedDurablyThenExhaustsAndFailsTheRun() throws Exception {
    RunRef runId =
        journal
            .admit(StartRun.of("k", Specs.run("x", Specs.llm("a", 2, List.of()))), Admit.queued())
            .runId();
    ClaimedAttempt first = claim(1, Duration.ofMillis(200)).getFirst();
    clock.advance(Duration.ofMillis(200));
    var expired = journal.expireLeases();
    assertThat(expired)
        .singleElement()
        .satisfies(e -> assertThat(e.disposition()).isEqualTo(Disposition.RETRY));
    assertThat(journal.expireLeases()).as("each expiry is journaled once").isEmpty();
    Instant nextAt =
        pg.count("SELECT count(*) FROM flows.steps WHERE not_before > updated_at") == 1
            ? Instant.MIN
            : Instant.MAX;
    assertThat(nextAt).as("the next attempt time is stored in the database").isEqualTo(Instant.MIN);

    ClaimedAttempt second = awaitClaim(Duration.ofMillis(200));
    assertThat(second.lease().attempt()).isEqualTo(2);
    assertThat(second.lease().leaseId()).isNotEqualTo(first.lease().leaseId());
    assertThat(second.idempotencyKey()).isEqualTo(first.idempotencyKey());
    clock.advance(Duration.ofMillis(200));
    assertThat(journal.expireLeases())
        .singleElement()
        .satisfies(e -> assertThat(e.disposition()).isEqualTo(Disposition.STEP_DONE));
    var run = journal.run(runId).orElseThrow();
    assertThat(run.status()).isEqualTo(RunStatus.FAILED);
    assertThat(run.step("a").orElseThrow().lastReason())
        .contains(CompletionReason.RETRIES_EXHAUSTED);
    assertThat(journal.entries(runId).getLast().entry())
        .isInstanceOf(JournalEntry.RunCompleted.class);
  }

  /** Claims the step retried next, once the journal's clock has reached its backoff. */
  private ClaimedAttempt awaitClaim(Duration lease) {
    ClaimRequest any = new ClaimRequest(WORKER, Set.of(StepKind.values()), 1, lease);
    journal.untilNextClaimable(any).ifPresent(clock::advance);
    List<ClaimedAttempt> got = claim(1, lease);
    assertThat(got).as("a step claimable once its backoff passed").hasSize(1);
    return got.getFirst();
  }

  @Test
  void aSuccessThatReadiesAStepNotifiesClaimersAndOneThatEndsTheRunNotifiesOnlyItsWatchers()
      throws Exception {
    // Another process's view: connections of its own that listen before anything happens.
    try (java.sql.Connection other = java.sql.DriverManager.getConnection(pg.db().jdbcUrl());
        java.sql.Connection watcher = java.sql.DriverManager.getConnection(pg.db().jdbcUrl());
        java.sql.Statement st = other.createStatement();
        java.sql.Statement ws = watcher.createStatement()) {
      st.execute("LISTEN flows_work");
      ws.execute("LISTEN flows_runs");
      RunRef runId =
          journal
              .admit(
                  StartRun.of("k", Specs.run("x", Specs.llm("a"), Specs.llm("b", 1, List.of("a")))),
                  Admit.queued())
              .runId();
      notified(other);
      ClaimedAttempt a = claim(1, Duration.ofSeconds(30)).getFirst();
      notified(other);
      journal.complete(a.lease(), new StepOutcome.Succeeded(OUT));
      assertThat(notified(other)).as("b became ready").contains(runId.value());
      assertThat(journal.run(runId).orElseThrow().step("b").orElseThrow().status())
          .isEqualTo(StepStatus.READY);

      ClaimedAttempt b = claim(1, Duration.ofSeconds(30)).getFirst();
      notified(other);
      notified(watcher);
      var ack = journal.complete(b.lease(), new StepOutcome.Succeeded(OUT));
      assertThat(ack.runStatus()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(notified(watcher)).as("the run ended").contains(runId.value());
      assertThat(notified(other)).as("no work became ready").doesNotContain(runId.value());
      assertThat(journal.entries(runId).stream().map(r -> r.entry().getClass().getSimpleName()))
          .endsWith("StepCompleted", "RunCompleted");
    }
  }

  /** The payloads of the notifications delivered to {@code listener} so far (drains them). */
  private static List<String> notified(java.sql.Connection listener) throws Exception {
    // An empty query makes the driver read what the server has sent.
    try (java.sql.Statement st = listener.createStatement()) {
      st.execute("SELECT 1");
    }
    org.postgresql.PGNotification[] got =
        listener.unwrap(org.postgresql.PGConnection.class).getNotifications();
    return got == null
        ? List.of()
        : java.util.Arrays.stream(got).map(org.postgresql.PGNotification::getParameter).toList();
  }

  @Test
  void aTombstoneRefusesALaterStartWithRunTerminal() {
    RunRef child = new RunRef("child_late");
    var canceled = journal.cancelRun(child, "parent canceled");
    assertThat(canceled.tombstoned()).isTrue();
    assertThat(journal.cancelRun(child, "again").alreadyTerminal()).isTrue();
    StartRun late =
        new StartRun(
            Optional.of(child), "child-key", Specs.run("c", Specs.llm("a")), Optional.empty(), "t");
    assertThatThrownBy(() -> journal.admit(late, Admit.queued()))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.RUN_TERMINAL);
    assertThat(journal.run(child).orElseThrow().steps()).isEmpty();
  }

  @Test
  void journalEntriesRefuseUpdateDeleteAndTruncateAtTheDatabase() throws Exception {
    journal.admit(StartRun.of("k", Specs.run("a", Specs.llm("a"))), Admit.queued());
    long entries = pg.count("SELECT count(*) FROM flows.journal_entries");
    assertThat(entries).isEqualTo(1);
    assertThatThrownBy(() -> pg.execute("UPDATE flows.journal_entries SET payload = '{}'"))
        .hasMessageContaining("append-only");
    assertThatThrownBy(() -> pg.execute("DELETE FROM flows.journal_entries"))
        .hasMessageContaining("DELETE refused")
        .hasMessageContaining("flows.prune_runs");
    assertThatThrownBy(() -> pg.execute("TRUNCATE flows.journal_entries CASCADE"))
        .hasMessageContaining("append-only");
    assertThat(pg.count("SELECT count(*) FROM flows.journal_entries")).isEqualTo(entries);
  }

  @Test
  void anUnconfirmedElectionIsTakenOverByTheNextAttempt() throws Exception {
    journal.admit(StartRun.of("k", Specs.run("t", Specs.agent("a", 2, "/mcp/x"))), Admit.queued());
    ClaimedAttempt first = claim(1, Duration.ofMillis(2_000)).getFirst();
    assertThat(journal.recordEffect(first.lease(), "/mcp/x").takenOver()).isFalse();
    assertThatThrownBy(() -> journal.complete(first.lease(), new StepOutcome.Succeeded(OUT)))
        .extracting(e -> ((FlowsException) e).code())
        .isEqualTo(ErrorCode.EFFECT_UNCONFIRMED);
    clock.advance(Duration.ofMillis(2_000));
    journal.expireLeases();
    ClaimedAttempt second = awaitClaim(Duration.ofSeconds(30));
    var election = journal.recordEffect(second.lease(), "/mcp/x");
    assertThat(election.takenOver()).isTrue();
    assertThat(election.deduped()).isFalse();
    journal.confirmEffect(second.lease(), "/mcp/x", Optional.of(OUT));
    journal.complete(
        second.lease(), new StepOutcome.Failed(CompletionReason.WORKER_ERROR, TAIL, false));
    assertThat(pg.count("SELECT count(*) FROM flows.effects WHERE confirmed AND attempt = 2"))
        .isEqualTo(1);
  }

  @Test
  void aStatementTheDatabaseRefusesIsDatabaseErrorAndWritesNothing() {
    RunRef runId =
        journal.admit(StartRun.of("k", Specs.run("z", Specs.llm("a"))), Admit.queued()).runId();
    ClaimedAttempt a = claim(1, Duration.ofSeconds(30)).getFirst();
    List<JournalRecord> before = journal.entries(runId);
    // jsonb cannot hold U+0000: the completion fails inside the transaction, after its first
    // writes.
    JsonNode nul = JsonNodeFactory.instance.objectNode().put("text", "a\u0000b");
    assertThatThrownBy(() -> journal.complete(a.lease(), new StepOutcome.Succeeded(nul)))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_ERROR);
              assertThat(e.retryable()).isFalse();
            });
    assertThat(journal.entries(runId)).isEqualTo(before);
    assertThat(journal.run(runId).orElseThrow().step("a").orElseThrow().status())
        .isEqualTo(StepStatus.RUNNING);
    journal.complete(a.lease(), new StepOutcome.Succeeded(OUT));
  }

  @Test
  void anUnreachableDatabaseIsRetryableDatabaseUnavailable() {
    JournalStoreConfig config =
        new JournalStoreConfig(
            "jdbc:postgresql://127.0.0.1:1/flows?connectTimeout=1",
            Optional.empty(),
            Optional.empty(),
            1,
            Duration.ofMillis(500),
            Duration.ofMillis(100),
            Duration.ofMillis(100),
            10);
    try (PostgresJournal down = PostgresJournal.connect(config)) {
      assertThatThrownBy(() -> down.run(new RunRef("r")))
          .isInstanceOfSatisfying(
              FlowsException.class,
              e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE);
                assertThat(e.retryable()).isTrue();
              });
    }
  }
}
