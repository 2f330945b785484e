package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Two worker processes with the flow a 1-second schedule starts, one of them killed (SIGKILL) and
 * started again every 20 s, for two minutes ({@code -Dschedule.it.seconds} to change): every
 * nominal tick in the window is one run or one journaled skip, never two runs.
 */
class ScheduleFailoverIT {
  private static final Duration WINDOW =
      Duration.ofSeconds(Long.getLong("schedule.it.seconds", 120));
  private static final Duration KILL_EVERY = Duration.ofSeconds(20);
  private static final List<String> TICK_FLOW = List.of("-Dflows.test.tickFlow=true");

  @Test
  void killingAWorkerEveryTwentySecondsNeverStartsATickTwice() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("schedule_failover");
    Process[] workers = new Process[2];
    for (int i = 0; i < 2; i++) {
      workers[i] = launch(db);
    }
    Instant end = Instant.now().plus(WINDOW);
    int victim = 0;
    while (Instant.now().isBefore(end)) {
      Thread.sleep(
          Math.min(
              KILL_EVERY.toMillis(), Math.max(0, end.toEpochMilli() - System.currentTimeMillis())));
      workers[victim].destroyForcibly().waitFor();
      workers[victim] = launch(db);
      victim = 1 - victim;
    }
    for (Process w : workers) {
      w.destroyForcibly().waitFor();
    }

    try (PostgresJournal journal =
        PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()))) {
      List<ScheduleRecord> entries = journal.scheduleEntries("tick");
      TreeMap<Instant, Integer> decided = new TreeMap<>();
      List<String> runs = new ArrayList<>();
      for (ScheduleRecord r : entries) {
        switch (r.entry()) {
          case ScheduleEntry.TickStarted t -> {
            decided.merge(t.nominal(), 1, Integer::sum);
            runs.add(t.runId().value());
            assertThat(journal.run(t.runId())).as("the run of tick " + t.nominal()).isPresent();
          }
          case ScheduleEntry.TickNotStarted t -> decided.merge(t.nominal(), 1, Integer::sum);
          default -> {}
        }
      }
      assertThat(decided).as("ticks decided").isNotEmpty();
      assertThat(decided.values()).as("each tick decided once").allMatch(n -> n == 1);
      assertThat(runs).as("each run started once").doesNotHaveDuplicates();
      long span = Duration.between(decided.firstKey(), decided.lastKey()).toSeconds() + 1;
      assertThat(decided).as("every nominal tick of the window").hasSize((int) span);
      assertThat(span).isGreaterThanOrEqualTo(WINDOW.toSeconds() - 30);
    }
  }

  private static Process launch(TestDatabase.Fresh db) throws java.io.IOException {
    return TestWorkerMain.launch(
        db.jdbcUrl(), Duration.ofSeconds(5), Optional.empty(), 0, TICK_FLOW);
  }
}
