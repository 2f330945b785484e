package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig.GroupCommitLimits;
import dev.flows.kernel.RunAdmissionConflictException;
import dev.flows.kernel.RunTerminalException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * An admission with its end ({@code Admit.WithItsEnd}) with group commit on a real Postgres: runs
 * that concurrent starters admit with their end are written by one statement, and each starter is
 * answered for its own run as a lone admission would be. The batch is made by holding the first
 * admission's key in an open transaction here: its statement waits on it while the others queue
 * behind it.
 */
class SucceededAdmissionsTest {
  private static final WorkerId WORKER = new WorkerId("w-admit");
  private static final Duration LEASE = Duration.ofSeconds(60);
  private static final int QUEUED = 6;

  @Test
  void runsThatConcurrentStartersAdmitWithTheirEndAreWrittenInOneTransactionEachAsAlone()
      throws Exception {
    try (PostgresFixture pg =
        PostgresFixture.create("admit_batch", new GroupCommitLimits(64, 1, 1_000))) {
      List<Admission> queued =
          IntStream.range(0, QUEUED).mapToObj(i -> Admission.of("batch-" + i, i)).toList();
      List<Object> answers = playBehindAHeldFirst(pg, queued);
      for (int i = 0; i < QUEUED; i++) {
        assertThat(answers.get(i))
            .as("run %d", i)
            .isInstanceOfSatisfying(
                CompletionAck.class, a -> assertThat(a.runStatus()).isEqualTo(RunStatus.SUCCEEDED));
        assertWrittenAsAlone(pg, queued.get(i));
      }
      assertThat(transactionsOf(pg, queued)).isEqualTo(1);
    }
  }

  @Test
  void theAdmissionWithItsEndRunsOnGenericPlansSoNoneOfItsStatementsIsPlannedAgainPerCall()
      throws Exception {
    // Its answer's query kept a custom plan, planned afresh on every call (pg_stat_statements:
    // one plan per call, its planning longer than its run), without the function's setting.
    try (PostgresFixture pg = PostgresFixture.create("admit_plans")) {
      assertThat(
              pg.rows(
                  "SELECT array_to_string(proconfig, ',') FROM pg_proc"
                      + " WHERE oid = 'flows.start_succeeded'::regproc"))
          .containsExactly(List.of("plan_cache_mode=force_generic_plan"));
    }
  }

  @Test
  void runsOfTheBatchThatMeetARunAreAnsweredAsStartRunWouldAndTheOthersAreWritten()
      throws Exception {
    try (PostgresFixture pg =
        PostgresFixture.create("admit_met", new GroupCommitLimits(64, 1, 1_000))) {
      List<Admission> queued =
          IntStream.range(0, QUEUED).mapToObj(i -> Admission.of("met-" + i, 1)).toList();
      // Run 2 was admitted already by the same admission: answered empty, as a queued admission
      // answers it.
      Admission again = queued.get(2);
      pg.journal().admit(again.request(), Admit.queued());
      int againEntries = pg.journal().entries(again.runId()).size();
      // Run 3's key admitted another run id: refused, as a queued admission refuses it.
      Admission taken = queued.get(3);
      RunRef other =
          pg.journal().admit(taken.request().withRunId(RunRef.random()), Admit.queued()).runId();
      List<Object> answers = playBehindAHeldFirst(pg, queued);
      for (int i = 0; i < QUEUED; i++) {
        switch (i) {
          case 2 -> {
            assertThat(answers.get(i)).isEqualTo(Optional.empty());
            assertThat(pg.journal().entries(again.runId())).hasSize(againEntries);
          }
          case 3 -> {
            assertThat(answers.get(i))
                .isInstanceOfSatisfying(
                    RunAdmissionConflictException.class,
                    e -> assertThat(e.getMessage()).contains(other.value()));
            assertThat(pg.journal().run(taken.runId())).isEmpty();
          }
          default -> {
            assertThat(answers.get(i)).as("run %d", i).isInstanceOf(CompletionAck.class);
            assertWrittenAsAlone(pg, queued.get(i));
          }
        }
      }
      List<Admission> written = new ArrayList<>(queued);
      written.remove(3);
      written.remove(2);
      assertThat(transactionsOf(pg, written)).isEqualTo(1);
    }
  }

  @Test
  void aBatchThatFailsIsWrittenRunByRunSoOneRunsRefusalIsItsOwn() throws Exception {
    try (PostgresFixture pg =
        PostgresFixture.create("admit_refused", new GroupCommitLimits(64, 1, 1_000))) {
      List<Admission> queued = new ArrayList<>();
      for (int i = 0; i < QUEUED; i++) {
        queued.add(Admission.of("refused-" + i, 2));
      }
      // The same run id under another key: the batch's statement fails (its step would be written
      // twice); alone, the later one finds the run ended under another key, a refusal of its own.
      Admission twin = queued.get(4).twinOf(queued.get(1));
      queued.set(4, twin);
      List<Object> answers = playBehindAHeldFirst(pg, queued);
      // The twins reach the queue in whatever order their threads ran: the first written wins,
      // the other alone is refused.
      int refused = answers.get(4) instanceof RunTerminalException ? 4 : 1;
      assertThat(answers.get(refused))
          .as("run %d", refused)
          .isInstanceOf(RunTerminalException.class);
      for (int i = 0; i < QUEUED; i++) {
        if (i != refused) {
          assertThat(answers.get(i)).as("run %d", i).isInstanceOf(CompletionAck.class);
          assertWrittenAsAlone(pg, queued.get(i));
        }
      }
    }
  }

  /** One run to admit with its end: its request under a run id of its own, and its memos. */
  private record Admission(StartRun request, StepOutcome.Succeeded end) {
    static Admission of(String key, int memos) {
      String[] surfaces =
          IntStream.range(0, memos).mapToObj(m -> "/memo/" + m).toArray(String[]::new);
      StartRun request =
          new StartRun(
                  Optional.empty(),
                  key,
                  Specs.run("admit", Specs.agent("body", 1, surfaces)),
                  Optional.empty(),
                  "test",
                  Optional.empty(),
                  "default")
              .withRunId(RunRef.random());
      List<MemoEffect> effects = new ArrayList<>();
      for (int m = 0; m < memos; m++) {
        effects.add(new MemoEffect("/memo/" + m, Optional.of(value(key + "/" + m))));
      }
      return new Admission(request, new StepOutcome.Succeeded(value(key), effects));
    }

    RunRef runId() {
      return request.runId().orElseThrow();
    }

    /** This admission's key and end under {@code other}'s run id. */
    Admission twinOf(Admission other) {
      return new Admission(request.withRunId(other.runId()), end);
    }

    Object admit(PostgresFixture pg) {
      try {
        return pg.journal()
            .admit(request, Admit.withItsEnd(WORKER, LEASE, end))
            .map(a -> (Object) a)
            .orElse(Optional.empty());
      } catch (RuntimeException e) {
        return e;
      }
    }
  }

  private static JsonNode value(String v) {
    return JsonNodeFactory.instance.objectNode().put("v", v);
  }

  /**
   * Admits a first run whose key is held by an open transaction here, so its statement waits;
   * starts {@code queued} meanwhile, each on its own thread, until all of them wait in the queue;
   * then lets go. Answers, per queued admission, its ack, {@code Optional.empty()} or its refusal.
   */
  private static List<Object> playBehindAHeldFirst(PostgresFixture pg, List<Admission> queued)
      throws Exception {
    Admission first = Admission.of("held-first", 1);
    ExecutorService pool = Executors.newFixedThreadPool(queued.size() + 1);
    try (Connection holder = DriverManager.getConnection(pg.db().jdbcUrl())) {
      holder.setAutoCommit(false);
      try (var hold =
          holder.prepareStatement(
              "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash,"
                  + " created_by, created_at) VALUES ('holder', 'n', 'running', ?, '{}', 'h', 't',"
                  + " now())")) {
        hold.setString(1, first.request().admissionKey());
        hold.executeUpdate();
      }
      Future<Object> firstAnswer = pool.submit(() -> first.admit(pg));
      GroupCommitPostgresTest.awaitLockWait(pg);
      List<Thread> waiting = new CopyOnWriteArrayList<>();
      List<Future<Object>> answers = new ArrayList<>();
      for (Admission a : queued) {
        Callable<Object> call =
            () -> {
              waiting.add(Thread.currentThread());
              return a.admit(pg);
            };
        answers.add(pool.submit(call));
      }
      GroupCommitTest.awaitAllWaiting(waiting, queued.size());
      holder.rollback();
      assertThat(firstAnswer.get()).isInstanceOf(CompletionAck.class);
      List<Object> out = new ArrayList<>();
      for (Future<Object> f : answers) {
        out.add(f.get());
      }
      return out;
    } catch (ExecutionException e) {
      throw new AssertionError(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** The run's journal is what a lone admission with its end writes (JournalContract). */
  private static void assertWrittenAsAlone(PostgresFixture pg, Admission a) {
    RunRef id = a.runId();
    List<String> types = new ArrayList<>(List.of("run.spawned", "step.attempt.started"));
    for (int m = 0; m < a.end().memos().size(); m++) {
      types.add("effect.recorded");
      types.add("effect.confirmed");
    }
    types.add("step.completed");
    types.add("run.completed");
    List<JournalEntry> entries =
        pg.journal().entries(id).stream().map(JournalRecord::entry).toList();
    assertThat(entries).extracting(JournalEntry::type).containsExactlyElementsOf(types);
    assertThat(pg.journal().run(id).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(pg.journal().run(id).orElseThrow().admissionKey())
        .isEqualTo(a.request().admissionKey());
    assertThat(entries.stream().filter(JournalEntry.EffectConfirmed.class::isInstance))
        .extracting(e -> ((JournalEntry.EffectConfirmed) e).output())
        .containsExactlyElementsOf(a.end().memos().stream().map(MemoEffect::output).toList());
    JournalEntry.StepCompleted done =
        entries.stream()
            .filter(JournalEntry.StepCompleted.class::isInstance)
            .map(JournalEntry.StepCompleted.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(done.output()).contains(a.end().output());
    assertThat(done.effects())
        .extracting(e -> e.surfacePath())
        .containsExactlyElementsOf(a.end().memos().stream().map(MemoEffect::surfacePath).toList());
  }

  /** How many transactions wrote the runs of {@code admissions}. */
  private static long transactionsOf(PostgresFixture pg, List<Admission> admissions)
      throws Exception {
    String ids =
        String.join(",", admissions.stream().map(a -> "'" + a.runId().value() + "'").toList());
    return pg.count(
        "SELECT count(DISTINCT xmin::text) FROM (SELECT xmin FROM flows.runs WHERE run_id IN ("
            + ids
            + ") UNION ALL SELECT xmin FROM flows.journal_entries WHERE run_id IN ("
            + ids
            + ")) t");
  }
}
