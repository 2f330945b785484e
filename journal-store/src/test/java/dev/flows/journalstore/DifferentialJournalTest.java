package dev.flows.journalstore;

import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.differential.Differential;
import dev.flows.kernel.lifecycle.TransitionLog;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Postgres journal held to the reference journal by seeded random scripts of journal verbs
 * (kernel test-jar, {@link Differential}). One database for all scripts, emptied between them; its
 * journal's test clock is each script's {@link ManualClock}, so leases and backoff expire exactly
 * as in the reference.
 *
 * <p>{@code -Ddifferential.seed=N} replays one script; {@code -Ddifferential.firstSeed=N} and
 * {@code -Ddifferential.scripts=M} run another range.
 */
class DifferentialJournalTest {
  private static final int VERBS_PER_SCRIPT = 30;
  private static final String REPLAY =
      "bin/mvn -o -pl journal-store -am verify -Dtest=DifferentialJournalTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Ddifferential.seed=%d";

  private static PostgresFixture fixture;
  private static Connection cleaner;
  private static final AtomicReference<ManualClock> CLOCK = new AtomicReference<>();

  @BeforeAll
  static void oneDatabaseForAllScripts() throws SQLException {
    InstantSource scriptClock = () -> CLOCK.get().instant();
    fixture = PostgresFixture.create("differential", scriptClock);
    // Emptied between scripts: this database only, whose journal is otherwise append-only.
    fixture.execute("ALTER TABLE flows.journal_entries DISABLE TRIGGER journal_no_truncate");
    fixture.execute(
        "ALTER TABLE flows.schedule_entries DISABLE TRIGGER schedule_entries_no_truncate");
    cleaner = DriverManager.getConnection(fixture.db().jdbcUrl());
  }

  @AfterAll
  static void close() throws SQLException {
    cleaner.close();
    fixture.close();
  }

  @Test
  void postgresAnswersAndJournalsExactlyAsTheReferenceJournalOnEveryScript() {
    Differential differential = new Differential(subject(), VERBS_PER_SCRIPT, REPLAY);
    long started = System.nanoTime();
    long[] seeds = seeds().toArray();
    for (long seed : seeds) {
      differential.run(seed);
    }
    System.out.printf(
        "differential: %d scripts of %d verbs (seeds %d..%d) agreed in %.1f s%n",
        seeds.length,
        VERBS_PER_SCRIPT,
        seeds[0],
        seeds[seeds.length - 1],
        (System.nanoTime() - started) / 1e9);
  }

  @Test
  void postgresAnswersAndJournalsExactlyAsTheReferenceJournalOnScriptsOfScheduleVerbs() {
    Differential differential = Differential.ofSchedules(subject(), VERBS_PER_SCRIPT, REPLAY);
    for (long seed = 1; seed <= Integer.getInteger("differential.scheduleScripts", 100); seed++) {
      differential.run(seed);
    }
  }

  /** Postgres, emptied before each script. */
  private static Differential.Subject subject() {
    return new Differential.Subject() {
      @Override
      public Journal open(ManualClock clock) {
        try (Statement st = cleaner.createStatement()) {
          st.execute(
              "TRUNCATE flows.journal_entries, flows.effect_elections, flows.step_wait_notes,"
                  + " flows.schedules, flows.schedule_entries,"
                  + " flows.signal_mailbox, flows.mcp_task_state,"
                  + " flows.steps,"
                  + " flows.runs");
        } catch (SQLException e) {
          throw new IllegalStateException("could not empty the journal", e);
        }
        CLOCK.set(clock);
        return fixture.journal();
      }

      @Override
      public TransitionLog transitions(Journal journal) {
        return ((PostgresJournal) journal).transitions();
      }
    };
  }

  private static LongStream seeds() {
    String one = System.getProperty("differential.seed", "");
    if (!one.isBlank()) {
      return LongStream.of(Long.parseLong(one.strip()));
    }
    long first = Long.getLong("differential.firstSeed", 1);
    return LongStream.range(first, first + Integer.getInteger("differential.scripts", 500));
  }
}
