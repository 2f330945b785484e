package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.Schedules;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ScheduleTickerTest {
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  private final ManualClock clock = new ManualClock(START);
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final FlowsEngine engine = FlowsEngine.withDefaults(journal);

  @AfterEach
  void close() {
    engine.close();
  }

  private void create(String flow) {
    journal.changeSchedule(
        new ScheduleChange.Create(
            ScheduleDefinition.of(
                "every-second", flow, Calendar.every(Duration.ofSeconds(1), Duration.ZERO)),
            "test"));
  }

  @Test
  void aDueTickOfARegisteredFlowIsAdmittedAsARootRunOfThatFlow() {
    engine.register(new TickFlow());
    create("tick");
    assertThat(engine.scheduleTicker().tickOnce()).isZero();

    clock.advance(Duration.ofSeconds(1));
    assertThat(engine.scheduleTicker().tickOnce()).isEqualTo(1);
    assertThat(engine.scheduleTicker().tickOnce()).isZero();

    RunRef id = Schedules.runId("every-second", START.plusSeconds(1));
    assertThat(journal.run(id)).isPresent();
    assertThat(journal.run(id).orElseThrow().name()).isEqualTo("tick");
    assertThat(journal.scheduleEntries("every-second").getLast().entry())
        .isInstanceOf(ScheduleEntry.TickStarted.class);
  }

  @Test
  void schedulesDueAtTheSameSecondBeyondOneBatchAreAllTakenInOnePoll() {
    engine.register(new TickFlow());
    int n = ScheduleTicker.BATCH * 2 + 50;
    createMinutely("minutely-", n);
    clock.advance(Duration.ofMinutes(1));

    assertThat(engine.scheduleTicker().tickOnce()).isEqualTo(n);
    assertThat(engine.scheduleTicker().tickOnce()).isZero();
  }

  @Test
  void aWorkerWithoutTheSchedulesFlowLeavesItsTicksToAnother() {
    create("tick");
    clock.advance(Duration.ofSeconds(1));

    assertThat(engine.scheduleTicker().tickOnce()).isZero();
    assertThat(journal.scheduleEntries("every-second")).hasSize(1);
  }

  @Test
  void aScheduleAFlowHeaderDeclaresIsAppliedWhenTheWorkerStarts() {
    engine.register(new TickFlow());
    engine.startWorker();

    var s = journal.schedule("tick").orElseThrow();
    assertThat(s.definition().flow()).isEqualTo("tick");
    assertThat(s.definition().calendar())
        .isEqualTo(Calendar.every(Duration.ofSeconds(1), Duration.ZERO));
    assertThat(journal.scheduleEntries("tick"))
        .extracting(r -> r.entry().type())
        .containsExactly("schedule.created");
  }

  @Test
  void aClosedTickerStartedAgainTakesTheTicksDueBeyondOneBatch() throws Exception {
    engine.register(new TickFlow());
    ScheduleTicker ticker = engine.scheduleTicker();
    ticker.start();
    ticker.close();
    int n = ScheduleTicker.BATCH * 2 + 50;
    createMinutely("again-", n);
    clock.advance(Duration.ofMinutes(1));

    ticker.start();

    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (taken(n) < n && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(taken(n)).isEqualTo(n);
  }

  private void createMinutely(String prefix, int n) {
    for (int i = 0; i < n; i++) {
      journal.changeSchedule(
          new ScheduleChange.Create(
              ScheduleDefinition.of(prefix + i, "tick", Calendar.cron("* * * * *")), "test"));
    }
  }

  private long taken(int n) {
    return java.util.stream.IntStream.range(0, n)
        .filter(
            i ->
                journal.scheduleEntries("again-" + i).getLast().entry()
                    instanceof ScheduleEntry.TickStarted)
        .count();
  }
}
