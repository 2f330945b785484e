package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.spec.StepKind;
import dev.flows.kernel.spec.StepSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Acceptance: 4 claimer threads over 2,000 ready steps on one Postgres journal. */
class ConcurrentClaimTest {
  private static final int STEPS = 2_000;
  private static final int CLAIMERS = 4;
  private static final int CAPACITY = 8;
  // Far longer than the test: no lease may expire, so every step has exactly one attempt.
  private static final Duration LEASE = Duration.ofMinutes(5);

  private static PostgresFixture pg;

  @BeforeAll
  static void open() {
    pg = PostgresFixture.create("claim4");
  }

  @AfterAll
  static void close() {
    pg.close();
  }

  @Test
  void fourClaimersClaimEveryStepExactlyOnceAndNeverHoldTwoLiveLeasesOnOneStep() throws Exception {
    List<StepSpec> steps = IntStream.range(0, STEPS).mapToObj(i -> Specs.llm("s" + i)).toList();
    RunRef runId =
        pg.journal()
            .admit(
                StartRun.of("many", Specs.run("many", steps.toArray(StepSpec[]::new))),
                Admit.queued())
            .runId();

    Map<String, List<ClaimedAttempt>> claimsByStep = new ConcurrentHashMap<>();
    Set<String> live = ConcurrentHashMap.newKeySet();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger completed = new AtomicInteger();
    long started = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(CLAIMERS);
    List<Future<Integer>> claimers = new ArrayList<>();
    for (int w = 0; w < CLAIMERS; w++) {
      WorkerId worker = new WorkerId("claimer-" + w);
      claimers.add(
          pool.submit(
              () -> {
                int mine = 0;
                while (true) {
                  List<ClaimedAttempt> got =
                      pg.journal()
                          .claim(new ClaimRequest(worker, Set.of(StepKind.LLM), CAPACITY, LEASE));
                  if (got.isEmpty()) {
                    return mine;
                  }
                  for (ClaimedAttempt a : got) {
                    mine++;
                    claimsByStep.computeIfAbsent(a.step().id(), k -> new ArrayList<>()).add(a);
                    if (!live.add(a.step().id())) {
                      overlaps.incrementAndGet();
                    }
                  }
                  // Release half of them (by success) so claims and completions interleave.
                  for (ClaimedAttempt a : got.subList(0, got.size() / 2)) {
                    live.remove(a.step().id());
                    completed.incrementAndGet();
                    pg.journal()
                        .complete(
                            a.lease(),
                            new StepOutcome.Succeeded(
                                JsonNodeFactory.instance.numberNode(a.lease().attempt())));
                  }
                }
              }));
    }
    pool.shutdown();
    assertThat(pool.awaitTermination(5, TimeUnit.MINUTES)).isTrue();
    // Not asserted (the machine is shared and noisy); printed for the record.
    System.out.printf(
        "%d claims and %d completions by %d claimers in %d ms%n",
        STEPS, completed.get(), CLAIMERS, (System.nanoTime() - started) / 1_000_000);
    List<Integer> perClaimer = new ArrayList<>();
    for (Future<Integer> f : claimers) {
      perClaimer.add(f.get());
    }

    assertThat(perClaimer.stream().mapToInt(Integer::intValue).sum()).isEqualTo(STEPS);
    assertThat(claimsByStep).hasSize(STEPS);
    assertThat(claimsByStep.values())
        .allSatisfy(
            claims -> {
              assertThat(claims).hasSize(1);
              assertThat(claims.getFirst().lease().attempt()).isEqualTo(1);
            });
    assertThat(overlaps.get()).as("two live leases on one step").isZero();
    assertThat(
            claimsByStep.values().stream()
                .map(c -> c.getFirst().lease().leaseId())
                .collect(Collectors.toSet()))
        .hasSize(STEPS);

    List<JournalRecord> entries = pg.journal().entries(runId);
    Map<String, Long> startedPerStep =
        entries.stream()
            .map(JournalRecord::entry)
            .filter(e -> e instanceof JournalEntry.StepAttemptStarted)
            .map(e -> ((JournalEntry.StepAttemptStarted) e).stepId())
            .collect(Collectors.groupingBy(s -> s, Collectors.counting()));
    assertThat(startedPerStep).hasSize(STEPS).allSatisfy((step, n) -> assertThat(n).isOne());
    assertThat(
            pg.count(
                "SELECT count(*) FROM (SELECT step_id FROM flows.step_attempts WHERE open"
                    + " GROUP BY step_id HAVING count(*) > 1) twice"))
        .as("two open attempts on one step, per the step_attempts view")
        .isZero();
    assertThat(pg.count("SELECT count(*) FROM flows.steps WHERE status = 'running'"))
        .isEqualTo(STEPS - completed.get());
    assertThat(pg.journal().run(runId).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    assertThat(perClaimer).as("work spread over every claimer").allMatch(n -> n > 0);
  }
}
