package dev.flows.ops.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos run's invariant checks, each shown to pass on a clean journal and to catch the
 * violation it is for. (The chaos run itself is {@code ops/chaos/run}, kept out of the build: it
 * needs minutes and several JVMs.)
 */
class ChaosChecksTest {
  private static final WorkerId WORKER = new WorkerId("chaos-checks");
  private static final Duration LEASE = Duration.ofSeconds(30);

  @TempDir Path dir;
  private TestDatabase.Fresh db;
  private PostgresJournal journal;
  private Connection c;
  private ChaosChecks.Ledgers ledgers;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.fresh("chaos_checks");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()));
    c = DriverManager.getConnection(db.jdbcUrl());
    ChaosLoad.instrument(c);
    ledgers =
        new ChaosChecks.Ledgers(
            dir.resolve("idem.ledger"),
            dir.resolve("plain.ledger"),
            "/mcp/idem/x",
            "/mcp/plain/x",
            dir.resolve("tasks.events.jsonl"));
  }

  @AfterEach
  void tearDown() throws Exception {
    c.close();
    journal.close();
  }

  private RunRef start() {
    return journal
        .admit(
            StartRun.of(
                "k" + System.nanoTime(),
                new RunSpec(RunSpec.VERSION, "t", List.of(Specs.command("one", "true")))),
            Admit.queued())
        .runId();
  }

  private ClaimedAttempt claim() {
    return journal
        .claim(new ClaimRequest(WORKER, EnumSet.allOf(StepKind.class), 1, LEASE))
        .getFirst();
  }

  private RunRef completedRun() {
    RunRef run = start();
    journal.complete(
        claim().lease(), new StepOutcome.Succeeded(JsonNodeFactory.instance.textNode("ok")));
    return run;
  }

  private List<String> check() throws Exception {
    return new ChaosChecks(c).runAll(ledgers, List.of(JournalSnapshot.take(c))).violations;
  }

  private void execute(String sql) throws Exception {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  @Test
  void aCompletedRunWhoseKeysWerePerformedOncePassesEveryCheck() throws Exception {
    completedRun();
    Files.writeString(ledgers.idempotent(), "k1\nk2\n");
    Files.writeString(Path.of(ledgers.idempotent() + ".calls"), "k1\nk2\nk2\n");

    ChaosChecks checks = new ChaosChecks(c).runAll(ledgers, List.of(JournalSnapshot.take(c)));

    assertThat(checks.violations).isEmpty();
    assertThat(checks.facts)
        .containsEntry("worker completions judged against their lease", 1L)
        .containsEntry("idempotent server: resends absorbed by key", 1L);
  }

  @Test
  void aRunStillRunningAfterTheDrainIsAViolation() throws Exception {
    RunRef run = start();
    assertThat(check()).singleElement().asString().contains(run.value(), "neither terminal");
  }

  @Test
  void aKeyPerformedTwiceOrSentTwiceWithoutIdempotencyIsAViolation() throws Exception {
    completedRun();
    Files.writeString(ledgers.idempotent(), "k1\nk1\n");
    Files.writeString(Path.of(ledgers.plain() + ".calls"), "p1\np1\n");

    assertThat(check())
        .anySatisfy(v -> assertThat(v).contains("performed key k1 twice"))
        .anySatisfy(v -> assertThat(v).contains("received key p1 more than once"))
        .hasSize(2);
  }

  /** A long from a one-row, one-column query. */
  private long single(String sql) throws Exception {
    try (Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** A suspension of attempt {@code attempt}, judged in time by the lease checks. */
  private String entry(RunRef run, int attempt) throws Exception {
    execute(
        "INSERT INTO chaos.attempt_ends VALUES ('"
            + run.value()
            + "', 'one', "
            + attempt
            + ", now() + interval '1 minute', now(), now(), 'ready', 'suspended')");
    return " VALUES (now(), '"
        + run.value()
        + "', 'step.completed', 'one', "
        + attempt
        + ", '{\"reason\": \"suspended\"}')";
  }

  @Test
  void anEntryCommittedAfterASnapshotWithALowerSeqIsNoChangeButAnUpdatedOneIs() throws Exception {
    RunRef run = completedRun();
    // A transaction takes its seq, another commits a higher one, the snapshot sees that one, and
    // the first commits last: its entry appears below the snapshot's seq.
    long taken = single("SELECT nextval(pg_get_serial_sequence('flows.journal_entries', 'seq'))");
    execute(
        "INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)"
            + entry(run, 2));
    JournalSnapshot before = JournalSnapshot.take(c);
    execute(
        "INSERT INTO flows.journal_entries (seq, at, run_id, entry_type, step_id, attempt,"
            + " payload) OVERRIDING SYSTEM VALUE"
            + entry(run, 3).replace("VALUES (", "VALUES (" + taken + ", "));

    ChaosChecks checks = new ChaosChecks(c).runAll(ledgers, List.of(before));
    assertThat(checks.violations).isEmpty();
    assertThat(checks.facts)
        .containsEntry("journal entries committed after a snapshot with a lower seq", 1L);

    // An entry rewritten behind the append-only guard's back is a change.
    execute("ALTER TABLE flows.journal_entries DISABLE TRIGGER USER");
    execute("UPDATE flows.journal_entries SET payload = '{}' WHERE seq = " + before.maxSeq());
    execute("ALTER TABLE flows.journal_entries ENABLE TRIGGER USER");
    assertThat(new ChaosChecks(c).runAll(ledgers, List.of(before)).violations)
        .singleElement()
        .asString()
        .contains("1 changed, 0 gone");
  }

  @Test
  void aCompletionJournaledAfterItsLeaseEndedIsAViolation() throws Exception {
    RunRef run = completedRun();
    // Forged, since the engine's fence never lets one through: attempt 2 ended a minute after
    // its deadline.
    execute(
        "INSERT INTO chaos.attempt_ends VALUES ('"
            + run.value()
            + "', 'one', 2, now() - interval '1 minute', now(), now(), 'succeeded', 'success')");
    execute(
        "INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)"
            + " VALUES (now(), '"
            + run.value()
            + "', 'step.completed', 'one', 2, '{\"reason\": \"success\", \"output\": 1}')");

    assertThat(check()).singleElement().asString().contains("attempt 2 accepted at");
  }

  @Test
  void aSuspensionIsJudgedAsAWorkerCompletionNotAsAnExpiry() throws Exception {
    RunRef run = completedRun();
    // A body gave attempt 2 back while its lease ran: a worker's completion, in time.
    execute(
        "INSERT INTO chaos.attempt_ends VALUES ('"
            + run.value()
            + "', 'one', 2, now() + interval '1 minute', now(), now(), 'ready', 'suspended')");
    execute(
        "INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)"
            + " VALUES (now(), '"
            + run.value()
            + "', 'step.completed', 'one', 2, '{\"reason\": \"suspended\"}')");
    assertThat(check()).isEmpty();

    // The same suspension written after its lease ended is a late completion.
    execute(
        "INSERT INTO chaos.attempt_ends VALUES ('"
            + run.value()
            + "', 'one', 3, now() - interval '1 minute', now(), now(), 'ready', 'suspended')");
    execute(
        "INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)"
            + " VALUES (now(), '"
            + run.value()
            + "', 'step.completed', 'one', 3, '{\"reason\": \"suspended\"}')");
    assertThat(check()).singleElement().asString().contains("attempt 3 accepted at");
  }

  @Test
  void anExpiryJournaledWhileTheLeaseRanIsAViolation() throws Exception {
    RunRef run = completedRun();
    // Forged as well: attempt 2 expired a minute before its deadline (an expiry reports nothing).
    execute(
        "INSERT INTO chaos.attempt_ends VALUES ('"
            + run.value()
            + "', 'one', 2, now() + interval '1 minute', now(), now(), 'ready', 'lease_expired')");
    execute(
        "INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)"
            + " VALUES (now(), '"
            + run.value()
            + "', 'step.completed', 'one', 2, '{\"reason\": \"lease_expired\"}')");

    assertThat(check()).singleElement().asString().contains("expired at", "while its lease ran");
  }

  /**
   * A call run to the idempotency-aware server whose one attempt recorded its key and failed for
   * good (not retried; its step is no MCP call's, so the journal ends it failed even with the key
   * open): answers the key.
   */
  private String failedCallRun() {
    RunRef run =
        journal
            .admit(
                StartRun.of(
                    "k" + System.nanoTime(),
                    new RunSpec(RunSpec.VERSION, "t", List.of(Specs.agent("one", "/mcp/idem/x")))),
                Admit.queued())
            .runId();
    ClaimedAttempt a = claim();
    String key = journal.recordEffect(a.lease(), "/mcp/idem/x").idempotencyKey();
    journal.complete(
        a.lease(),
        new StepOutcome.Failed(
            CompletionReason.WORKER_ERROR,
            JsonNodeFactory.instance.objectNode().put("diagnostic", "mcp_disconnected"),
            false));
    assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.FAILED);
    return key;
  }

  @Test
  void aFailedRunWhoseUnconfirmedCallTheIdempotentServerPerformedIsAViolation() throws Exception {
    String key = failedCallRun();
    Files.writeString(ledgers.idempotent(), "k1\n");
    Files.writeString(Path.of(ledgers.idempotent() + ".calls"), "k1\n" + key + "\n");
    ChaosChecks never = new ChaosChecks(c).runAll(ledgers, List.of(JournalSnapshot.take(c)));
    assertThat(never.violations).as("the server received it but never performed it").isEmpty();
    assertThat(never.facts)
        .containsEntry("failed runs' calls never confirmed (idempotent server)", 1L);

    Files.writeString(ledgers.idempotent(), "k1\n" + key + "\n");
    assertThat(check())
        .singleElement()
        .asString()
        .contains("failed although the idempotency-aware server performed", key);
  }

  @Test
  void anExpiryThatParksAnEffectOfUnknownOutcomeWithATailIsStillAnExpiry() throws Exception {
    RunRef run = completedRun();
    // Forged: attempt 2 expired after its deadline and parked its call, with a tail.
    execute(
        "INSERT INTO chaos.attempt_ends VALUES ('"
            + run.value()
            + "', 'one', 2, now() - interval '1 minute', now(), now(), 'parked', 'lease_expired')");
    execute(
        "INSERT INTO flows.journal_entries (at, run_id, entry_type, step_id, attempt, payload)"
            + " VALUES (now(), '"
            + run.value()
            + "', 'step.completed', 'one', 2, '{\"reason\": \"lease_expired\","
            + " \"trajectoryTail\": {\"diagnostic\": \"effect_outcome_unknown\"}}')");

    assertThat(check()).isEmpty();
  }

  @Test
  void aJournalEntryChangedAfterASnapshotIsAViolationAndSoIsAJournalThatAllowsIt()
      throws Exception {
    completedRun();
    JournalSnapshot before = JournalSnapshot.take(c);
    execute("ALTER TABLE flows.journal_entries DISABLE TRIGGER journal_append_only");
    execute("ALTER TABLE flows.journal_entries DISABLE TRIGGER journal_delete_only_by_prune");
    execute("UPDATE flows.journal_entries SET payload = '{\"changed\": true}' WHERE seq = 1");

    List<String> violations = new ChaosChecks(c).runAll(ledgers, List.of(before)).violations;

    assertThat(violations)
        .anySatisfy(v -> assertThat(v).contains("journal entries up to seq"))
        .anySatisfy(v -> assertThat(v).contains("the journal accepted: UPDATE"))
        .anySatisfy(v -> assertThat(v).contains("the journal accepted: DELETE"));
  }

  /** A one-step run with input {@code {"n": n}} that succeeds with {@code output}. */
  private RunRef succeededWithInput(long n, com.fasterxml.jackson.databind.JsonNode output) {
    return succeededWithInput(JsonNodeFactory.instance.objectNode().put("n", n), output);
  }

  /** A one-step run with {@code input} that succeeds with {@code output}. */
  private RunRef succeededWithInput(
      com.fasterxml.jackson.databind.JsonNode input,
      com.fasterxml.jackson.databind.JsonNode output) {
    dev.flows.kernel.spec.StepSpec one = Specs.command("one", "true");
    dev.flows.kernel.spec.StepSpec withInput =
        new dev.flows.kernel.spec.StepSpec(
            one.id(),
            one.dependsOn(),
            input,
            one.maxIterations(),
            one.retry(),
            one.leaseMs(),
            one.timeoutMs(),
            one.body());
    RunRef run =
        journal
            .admit(
                StartRun.of(
                    "k" + System.nanoTime(), new RunSpec(RunSpec.VERSION, "t", List.of(withInput))),
                Admit.queued())
            .runId();
    journal.complete(claim().lease(), new StepOutcome.Succeeded(output));
    return run;
  }

  @Test
  void aBodyThatTookNoSignalOrAnotherRunsIsAViolation() throws Exception {
    succeededWithInput(7, JsonNodeFactory.instance.objectNode().put("go", 7));
    assertThat(check()).isEmpty();

    RunRef lost = succeededWithInput(8, JsonNodeFactory.instance.objectNode().put("go", -1));
    RunRef other = succeededWithInput(9, JsonNodeFactory.instance.objectNode().put("go", 3));

    assertThat(check())
        .anySatisfy(v -> assertThat(v).contains(lost.value(), "took signal -1, was sent 8"))
        .anySatisfy(v -> assertThat(v).contains(other.value(), "took signal 3, was sent 9"))
        .hasSize(2);
  }

  /** One line of the task server's events log. */
  private static String event(String name, String key, String taskId) {
    return JsonNodeFactory.instance
            .objectNode()
            .put("event", name)
            .put("key", key)
            .put("taskId", taskId)
            .toString()
        + "\n";
  }

  @Test
  void aKeyTheTaskServerReceivedInTwoCallsOrGaveTwoTasksIsAViolation() throws Exception {
    completedRun();
    Files.writeString(
        ledgers.taskEvents(),
        event("tools/call", "k1", "")
            + event("task.created", "k1", "t1")
            + event("tasks/get", "", "t1")
            + event("tools/call", "k2", "")
            + event("task.created", "k2", "t2"));
    ChaosChecks clean = new ChaosChecks(c).runAll(ledgers, List.of(JournalSnapshot.take(c)));
    assertThat(clean.violations).isEmpty();
    assertThat(clean.facts)
        .containsEntry("task server: tools/call received", 2L)
        .containsEntry("task server: tasks created", 2L)
        .containsEntry("task server: tasks/get polls", 1L);

    // k1 sent again (a call sent twice), k2 given a second task.
    Files.writeString(
        ledgers.taskEvents(),
        event("tools/call", "k1", "") + event("task.created", "k2", "t3"),
        java.nio.file.StandardOpenOption.APPEND);

    assertThat(check())
        .anySatisfy(v -> assertThat(v).contains("received key k1 in more than one tools/call"))
        .anySatisfy(v -> assertThat(v).contains("more than one task for key k2"))
        .hasSize(2);
  }

  @Test
  void aTaskRunThatAnswersAnotherResultOrHadNoTaskIsAViolation() throws Exception {
    RunRef wrong =
        succeededWithInput(
            JsonNodeFactory.instance.objectNode().put("task", 1).put("ms", 2000),
            JsonNodeFactory.instance.objectNode().put("said", "slow done after 2400 ms"));

    List<String> violations = check();

    assertThat(violations)
        .anySatisfy(
            v ->
                assertThat(v)
                    .contains(
                        wrong.value(),
                        "answered 'slow done after 2400 ms', not 'slow done after 2000 ms'"))
        .anySatisfy(v -> assertThat(v).contains(wrong.value(), "no task journaled"))
        .hasSize(2);
  }
}
