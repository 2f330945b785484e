package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.StepSnapshot;
import dev.flows.kernel.journal.WorkerId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A large MCP receipt (the step's output too) is stored once, in its effect election: the step row
 * and the {@code effect.confirmed} and {@code step.completed} entries name it, and every read gives
 * it whole.
 */
class StoredOnceTest {
  private static final int MIB = 1 << 20;

  @Test
  void aOneMebibyteReceiptIsStoredOnceAndReadWholeFromTheStepAndItsEntries() throws Exception {
    try (PostgresFixture pg = PostgresFixture.create("stored-once")) {
      PostgresJournal journal = pg.journal();
      ObjectNode receipt = JsonNodeFactory.instance.objectNode().put("type", "mcp");
      receipt.put("output", "x".repeat(MIB));
      var call =
          journal.admit(
              StartRun.of("k", Specs.run("big", Specs.agent("call", 1, "/mcp/y"))),
              Admit.claimedHere(new WorkerId("w"), Duration.ofSeconds(30)).electing("/mcp/y"));
      journal.confirmAndComplete(
          call.attempt().lease(),
          "/mcp/y",
          Optional.of((JsonNode) receipt),
          new StepOutcome.Succeeded(receipt));
      RunRef run = call.attempt().lease().runId();

      long bytes =
          pg.count(
              "SELECT sum(b) FROM ("
                  + " SELECT octet_length(t::text) b FROM flows.runs t UNION ALL"
                  + " SELECT octet_length(t::text) FROM flows.steps t UNION ALL"
                  + " SELECT octet_length(t::text) FROM flows.effect_elections t UNION ALL"
                  + " SELECT octet_length(t::text) FROM flows.journal_entries t) s");
      assertThat(bytes).isLessThan((long) (1.3 * MIB));

      assertThat(journal.run(run).orElseThrow().steps())
          .extracting(StepSnapshot::output)
          .containsExactly(Optional.of(receipt));
      assertThat(journal.entries(run))
          .extracting(JournalRecord::entry)
          .satisfiesOnlyOnce(
              e ->
                  assertThat(e)
                      .isInstanceOfSatisfying(
                          JournalEntry.EffectConfirmed.class,
                          c -> assertThat(c.output()).contains(receipt)))
          .satisfiesOnlyOnce(
              e ->
                  assertThat(e)
                      .isInstanceOfSatisfying(
                          JournalEntry.StepCompleted.class,
                          c -> assertThat(c.output()).contains(receipt)));
    }
  }

  @Test
  void aRunAdmittedWithItsEndKeepsALargeOutputEqualToAMemoOnlyInThatMemosElection()
      throws Exception {
    try (PostgresFixture pg = PostgresFixture.create("stored-once-ended")) {
      PostgresJournal journal = pg.journal();
      ObjectNode value = large();
      RunRef run = RunRef.random();
      journal
          .admit(
              StartRun.of("k", Specs.run("ended", Specs.agent("body", 1, "/memo/0")))
                  .withRunId(run),
              Admit.withItsEnd(
                  new WorkerId("w"),
                  Duration.ofSeconds(30),
                  new StepOutcome.Succeeded(
                      value, List.of(new MemoEffect("/memo/0", Optional.of(value))))))
          .orElseThrow();

      assertThat(storedBytes(pg)).isLessThan((long) (1.3 * MIB));
      assertThat(pg.count("SELECT count(*) FROM flows.steps WHERE output_of = '/memo/0'"))
          .isEqualTo(1);
      assertThat(journal.run(run).orElseThrow().steps())
          .extracting(StepSnapshot::output)
          .containsExactly(Optional.of(value));
      assertThat(journal.entries(run))
          .extracting(JournalRecord::entry)
          .filteredOn(JournalEntry.StepCompleted.class::isInstance)
          .singleElement()
          .satisfies(e -> assertThat(((JournalEntry.StepCompleted) e).output()).contains(value));
    }
  }

  @Test
  void aLargeOutputAnOperatorResolvesIsKeptOnceAndTheStepResolvedEntryReadsItWhole()
      throws Exception {
    try (PostgresFixture pg = PostgresFixture.create("stored-once-resolved")) {
      PostgresJournal journal = pg.journal();
      var call =
          journal.admit(
              StartRun.of("k", Specs.run("parked", Specs.agent("call", 1, "/x"))),
              Admit.claimedHere(new WorkerId("w"), Duration.ofSeconds(30)).electing("/x"));
      journal.complete(
          call.attempt().lease(),
          new StepOutcome.Parked(
              CompletionReason.WORKER_ERROR,
              ErrorCode.EFFECT_OUTCOME_UNKNOWN,
              JsonNodeFactory.instance.objectNode()));
      RunRef run = call.attempt().lease().runId();
      ObjectNode value = large();

      journal.resolveStep(run, "call", Optional.of(value), "ops");

      assertThat(storedBytes(pg)).isLessThan((long) (1.3 * MIB));
      assertThat(journal.run(run).orElseThrow().steps())
          .extracting(StepSnapshot::output)
          .containsExactly(Optional.of(value));
      assertThat(journal.entries(run))
          .extracting(JournalRecord::entry)
          .filteredOn(JournalEntry.StepResolved.class::isInstance)
          .singleElement()
          .satisfies(e -> assertThat(((JournalEntry.StepResolved) e).output()).contains(value));
    }
  }

  private static ObjectNode large() {
    return JsonNodeFactory.instance.objectNode().put("blob", "y".repeat(MIB));
  }

  /** The text of every row that may hold an output, summed. */
  private static long storedBytes(PostgresFixture pg) throws Exception {
    return pg.count(
        "SELECT sum(b) FROM ("
            + " SELECT octet_length(t::text) b FROM flows.runs t UNION ALL"
            + " SELECT octet_length(t::text) FROM flows.steps t UNION ALL"
            + " SELECT octet_length(t::text) FROM flows.effect_elections t UNION ALL"
            + " SELECT octet_length(t::text) FROM flows.journal_entries t) s");
  }
}
