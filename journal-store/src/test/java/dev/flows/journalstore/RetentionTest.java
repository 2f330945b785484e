package dev.flows.journalstore;

import static dev.flows.journalstore.Specs.agent;
import static dev.flows.journalstore.Specs.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.PruneReport;
import dev.flows.kernel.journal.PruneRequest;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the database itself holds to when runs are pruned: the guards and the audit record. */
class RetentionTest {
  private static final WorkerId WORKER = new WorkerId("w-retention");
  private PostgresFixture fixture;
  private ManualClock clock;

  @BeforeEach
  void journal() {
    clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    fixture = PostgresFixture.create("retention", clock);
  }

  @AfterEach
  void close() {
    fixture.close();
  }

  /** A root with a child, both ended, the root's step with a confirmed effect. */
  private RunRef endedRunWithAChildAndAConfirmedEffect(String key) {
    PostgresJournal j = fixture.journal();
    RunRef root =
        j.admit(StartRun.of(key, run("root", agent("a", 1, "/memo/1"))), Admit.queued()).runId();
    RunRef child =
        j.admit(
                new StartRun(
                    Optional.empty(),
                    key + "-child",
                    run("child", agent("c", 1)),
                    Optional.of(root),
                    "test"),
                Admit.queued())
            .runId();
    for (ClaimedAttempt a :
        j.claim(new ClaimRequest(WORKER, Set.of(StepKind.values()), 10, Duration.ofSeconds(30)))) {
      if (a.lease().runId().equals(root)) {
        j.recordConfirmedEffect(
            a.lease(), "/memo/1", Optional.of(JsonNodeFactory.instance.objectNode().put("v", 1)));
      }
      j.complete(a.lease(), new StepOutcome.Succeeded(JsonNodeFactory.instance.nullNode()));
    }
    assertThat(j.run(child).orElseThrow().status().terminal()).isTrue();
    return root;
  }

  @Test
  void everyDeleteOfAJournalRowOutsideAPruneIsRefusedByTheDatabase() throws Exception {
    RunRef root = endedRunWithAChildAndAConfirmedEffect("guarded");
    String id = root.value();
    for (String sql :
        new String[] {
          "DELETE FROM flows.journal_entries WHERE run_id = '" + id + "'",
          "DELETE FROM flows.effect_elections WHERE run_id = '" + id + "'",
          // The child's step has no election: only the guard stands in its way.
          "DELETE FROM flows.steps WHERE run_id IN (SELECT run_id FROM flows.runs"
              + " WHERE parent_run_id = '"
              + id
              + "')",
          "DELETE FROM flows.runs WHERE run_id = '" + id + "'",
          "TRUNCATE flows.journal_entries CASCADE",
          "UPDATE flows.journal_entries SET payload = '{}' WHERE run_id = '" + id + "'"
        }) {
      assertThatThrownBy(() -> fixture.execute(sql))
          .as(sql)
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .containsAnyOf("refused", "cannot be deleted", "violates foreign key"));
    }
    assertThat(fixture.count("SELECT count(*) FROM flows.steps")).isEqualTo(2);
    assertThat(fixture.count("SELECT count(*) FROM flows.runs")).isEqualTo(2);
    assertThat(fixture.count("SELECT count(*) FROM flows.effect_elections")).isEqualTo(1);
    assertThat(fixture.journal().entries(root)).isNotEmpty();
  }

  @Test
  void aPruneWritesItsAuditRecordOfWhoWhenAndEveryRunItRemoved() throws Exception {
    RunRef root = endedRunWithAChildAndAConfirmedEffect("audited");
    long entries =
        fixture.count("SELECT count(*) FROM flows.journal_entries WHERE run_id LIKE '%'");
    clock.advance(Duration.ofDays(31));

    PruneReport r =
        fixture
            .journal()
            .prune(new PruneRequest(Duration.ofDays(30), OptionalInt.empty(), "alice", false));

    assertThat(r.roots()).containsExactly(root);
    assertThat(r.entries()).isEqualTo(entries);
    try (Connection c = DriverManager.getConnection(fixture.db().jdbcUrl());
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT prune_id, pruned_by, older_than = interval '30 days' AS period, at, roots,"
                    + " runs, entries FROM flows.prunes")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getLong("prune_id")).isEqualTo(r.pruneId().orElseThrow());
      assertThat(rs.getString("pruned_by")).isEqualTo("alice");
      assertThat(rs.getBoolean("period")).isTrue();
      assertThat(rs.getTimestamp("at").toInstant()).isEqualTo(clock.instant());
      assertThat(rs.getInt("roots")).isEqualTo(1);
      assertThat(rs.getInt("runs")).isEqualTo(2);
      assertThat(rs.getLong("entries")).isEqualTo(entries);
      assertThat(rs.next()).isFalse();
    }
    assertThat(fixture.count("SELECT count(*) FROM flows.pruned_runs")).isEqualTo(2);
    assertThat(
            fixture.count(
                "SELECT count(*) FROM flows.pruned_runs WHERE run_id = '"
                    + root.value()
                    + "' AND parent_run_id IS NULL AND status = 'succeeded'"))
        .isEqualTo(1);
    assertThat(fixture.count("SELECT count(*) FROM flows.journal_entries")).isZero();
    assertThat(fixture.count("SELECT count(*) FROM flows.effect_elections")).isZero();
    assertThatThrownBy(() -> fixture.execute("DELETE FROM flows.prunes"))
        .hasMessageContaining("append-only");
    assertThatThrownBy(() -> fixture.execute("UPDATE flows.pruned_runs SET name = 'x'"))
        .hasMessageContaining("append-only");
  }

  @Test
  void aTransactionThatPrunesStillCannotDeleteARunItsPruneDidNotRecord() throws Exception {
    endedRunWithAChildAndAConfirmedEffect("pruned");
    clock.advance(Duration.ofDays(2));
    RunRef kept = endedRunWithAChildAndAConfirmedEffect("kept");
    try (Connection c = DriverManager.getConnection(fixture.db().jdbcUrl())) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.execute(
            "SELECT * FROM flows.prune_runs(interval '1 day', 'mallory', NULL, false,"
                + " timestamptz '"
                + clock.instant()
                + "')");
        assertThatThrownBy(
                () ->
                    st.execute(
                        "DELETE FROM flows.journal_entries WHERE run_id = '" + kept.value() + "'"))
            .hasMessageContaining("DELETE refused for run " + kept.value());
      } finally {
        c.rollback();
      }
    }
    assertThat(fixture.journal().entries(kept)).isNotEmpty();
  }

  @Test
  void aPruneTakesItsCandidatesAChunkAtATimeAndStillPrunesEveryQualifiedRootOldestFirst()
      throws Exception {
    int roots = 2_345; // more than two of the function's chunks of 1,000 candidates
    try (Connection c = DriverManager.getConnection(fixture.db().jdbcUrl());
        Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash,"
              + " created_by, created_at) SELECT 'old-' || g, 'old', 'running', 'old-' || g,"
              + " '{}', 'h', 'test', timestamptz '2025-11-01' + g * interval '1 second'"
              + " FROM generate_series(1, "
              + roots
              + ") g");
      s.execute(
          "UPDATE flows.runs SET status = 'succeeded', completion_reason = 'success',"
              + " completed_at = created_at + interval '1 hour'");
    }
    PruneReport first =
        fixture
            .journal()
            .prune(new PruneRequest(Duration.ofDays(30), OptionalInt.of(1_500), "test", false));
    assertThat(first.roots()).hasSize(1_500);
    assertThat(first.roots().getFirst().value()).isEqualTo("old-1");
    assertThat(first.roots().getLast().value()).isEqualTo("old-1500");
    PruneReport rest =
        fixture
            .journal()
            .prune(new PruneRequest(Duration.ofDays(30), OptionalInt.empty(), "test", false));
    assertThat(rest.roots()).hasSize(roots - 1_500);
    assertThat(rest.roots().getFirst().value()).isEqualTo("old-1501");
    assertThat(
            fixture
                .journal()
                .prune(new PruneRequest(Duration.ofDays(30), OptionalInt.empty(), "test", false))
                .empty())
        .isTrue();
  }
}
