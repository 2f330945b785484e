package dev.flows.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionAck;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.LeaseRenewals;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WorkerLeaseTest {
  private static final Duration LEASE = Duration.ofMillis(900);
  private static final Duration SLACK = Duration.ofSeconds(1);
  private static final Duration CLOCK_READ_GAP = Duration.ofMillis(50);

  /**
   * How much later than the lease the test may note the same renewal's send time: two clock reads
   * on different threads, as far apart as the scheduler puts them on a loaded machine (a third of
   * {@link #LEASE}: a cancel at the refused renewal would still come two thirds too early).
   */
  private static final Duration SEND_NOTE_GAP = LEASE.dividedBy(3);

  private final Clock clock = Clock.systemUTC();
  private final InMemoryJournal inMemory = new InMemoryJournal(clock);

  private record Claimed(ClaimedAttempt attempt, Instant sentAt) {}

  private Claimed startAndClaim(int maxIterations) {
    RunRef run = RunRef.random();
    inMemory.admit(
        new StartRun(
            java.util.Optional.of(run),
            UUID.randomUUID().toString(),
            Specs.run(
                Specs.iterations(Specs.lease(Specs.command("s", "true"), LEASE), maxIterations)),
            java.util.Optional.empty(),
            "test"),
        Admit.queued());
    Instant sent = clock.instant();
    List<ClaimedAttempt> claimed =
        inMemory.claim(
            new ClaimRequest(new WorkerId("w"), Set.of(StepKind.DETERMINISTIC), 1, LEASE));
    assertThat(claimed).hasSize(1);
    return new Claimed(claimed.getFirst(), sent);
  }

  private WorkerLease lease(Journal journal) {
    return new WorkerLease(journal, WorkerConfig.defaults(), clock);
  }

  private static StepOutcome ok() {
    return new StepOutcome.Succeeded(JsonNodeFactory.instance.objectNode().put("ok", true));
  }

  @Test
  void aStepRunningThreeTimesItsLeaseCompletesWithRenewalsAndExactlyOneCompletion() {
    Claimed c = startAndClaim(1);

    LeasedCompletion done =
        lease(inMemory)
            .withWorkerLease(
                c.attempt(),
                c.sentAt(),
                new CancellationToken(),
                token -> {
                  Thread.sleep(LEASE.multipliedBy(3));
                  return ok();
                });

    assertThat(done.ack().reason()).isEqualTo(CompletionReason.SUCCESS);
    assertThat(done.renewals()).isGreaterThanOrEqualTo(2);
    assertThat(JournalChecks.completions(inMemory, c.attempt().lease().runId())).hasSize(1);
  }

  @Test
  void theFirstRenewalHappensBeforeTheWorkStarts() {
    Claimed c = startAndClaim(1);
    RenewalRecorder journal = new RenewalRecorder(inMemory, clock);
    AtomicInteger renewalsSeenByWork = new AtomicInteger(-1);

    lease(journal)
        .withWorkerLease(
            c.attempt(),
            c.sentAt(),
            new CancellationToken(),
            token -> {
              renewalsSeenByWork.set(journal.accepted());
              return ok();
            });

    assertThat(renewalsSeenByWork).hasValue(1);
  }

  @Test
  void aRenewalInFlightWhenTheWorkEndsIsDrainedBeforeTheCompletion() {
    Claimed c = startAndClaim(1);
    CountDownLatch secondRenewalSent = new CountDownLatch(1);
    List<String> events = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    Journal slow =
        new ForwardingJournal(inMemory) {
          @Override
          public Instant heartbeat(LeaseToken lease) {
            if (calls.incrementAndGet() == 2) {
              secondRenewalSent.countDown();
              try {
                Thread.sleep(LEASE.dividedBy(4));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              events.add("renewal answered");
            }
            return super.heartbeat(lease);
          }

          @Override
          public CompletionAck complete(LeaseToken lease, StepOutcome outcome) {
            events.add("complete");
            return super.complete(lease, outcome);
          }
        };

    lease(slow)
        .withWorkerLease(
            c.attempt(),
            c.sentAt(),
            new CancellationToken(),
            token -> {
              secondRenewalSent.await();
              return ok();
            });

    assertThat(events).containsExactly("renewal answered", "complete");
  }

  @Test
  void anAttemptPastItsLocalDeadlineStartsNoWork() {
    Claimed c = startAndClaim(1);
    AtomicBoolean ran = new AtomicBoolean();

    assertThatThrownBy(
            () ->
                lease(inMemory)
                    .withWorkerLease(
                        c.attempt(),
                        c.sentAt().minus(LEASE.multipliedBy(2)),
                        new CancellationToken(),
                        token -> {
                          ran.set(true);
                          return ok();
                        }))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> assertThat(e.reason()).isEqualTo(LostLeaseReason.ALREADY_EXPIRED));
    assertThat(ran).isFalse();
  }

  @Test
  void aRefusedFirstRenewalStartsNoWork() {
    Claimed c = startAndClaim(1);
    inMemory.cancelRun(c.attempt().lease().runId(), "test");
    AtomicBoolean ran = new AtomicBoolean();

    assertThatThrownBy(
            () ->
                lease(inMemory)
                    .withWorkerLease(
                        c.attempt(),
                        c.sentAt(),
                        new CancellationToken(),
                        token -> {
                          ran.set(true);
                          return ok();
                        }))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(LostLeaseReason.ALREADY_EXPIRED);
              assertThat(e.refusal()).contains(ErrorCode.RUN_TERMINAL);
            });
    assertThat(ran).isFalse();
  }

  @Test
  void aRefusedRenewalLetsTheLocalDeadlineCancelTheWorkAndNothingIsCompleted() {
    Claimed c = startAndClaim(1);
    RunRef run = c.attempt().lease().runId();
    RenewalRecorder journal = new RenewalRecorder(inMemory, clock);
    AtomicReference<Instant> canceledAt = new AtomicReference<>();
    CancellationToken token = new CancellationToken();
    token.onCancel(() -> canceledAt.set(clock.instant()));
    int entriesBefore = inMemory.entries(run).size();

    assertThatThrownBy(
            () ->
                lease(journal)
                    .withWorkerLease(
                        c.attempt(),
                        c.sentAt(),
                        token,
                        t -> {
                          // Revoke the lease under the running work: the next renewal is refused.
                          inMemory.cancelRun(run, "revoked");
                          Thread.sleep(LEASE.multipliedBy(10));
                          return ok();
                        }))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> assertThat(e.reason()).isEqualTo(LostLeaseReason.RENEWAL_EXPIRED));
    assertThat(token.cause()).contains(CancellationToken.Cause.LEASE_EXPIRED);
    Duration late = Duration.between(journal.localDeadline(LEASE), canceledAt.get());
    // The test notes the renewal's send time a moment after the lease does: allow that moment.
    assertThat(late).isBetween(SEND_NOTE_GAP.negated(), SLACK);
    // The cancel journaled its own entries; the worker added none after it.
    assertThat(inMemory.entries(run).size()).isEqualTo(entriesBefore + 3);
  }

  @Test
  void aCompletionAfterTheLeaseWasTakenIsRefusedAsCompletionExpired() {
    Claimed c = startAndClaim(1);
    RunRef run = c.attempt().lease().runId();

    assertThatThrownBy(
            () ->
                lease(inMemory)
                    .withWorkerLease(
                        c.attempt(),
                        c.sentAt(),
                        new CancellationToken(),
                        t -> {
                          inMemory.cancelRun(run, "revoked");
                          return ok();
                        }))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(LostLeaseReason.COMPLETION_EXPIRED);
              assertThat(e.refusal()).contains(ErrorCode.RUN_TERMINAL);
            });
    assertThat(JournalChecks.completionsWith(inMemory, run, CompletionReason.SUCCESS)).isZero();
  }

  @Test
  void aRenewalAnsweredAfterTheLocalDeadlineCannotReviveTheLease() throws Exception {
    Claimed c = startAndClaim(1);
    CountDownLatch released = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    Journal slow =
        new ForwardingJournal(inMemory) {
          @Override
          public Instant heartbeat(LeaseToken lease) {
            if (calls.incrementAndGet() == 2) {
              // The second renewal's answer is held until the local deadline has passed.
              try {
                released.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            return super.heartbeat(lease);
          }
        };
    CancellationToken token = new CancellationToken();
    token.onCancel(released::countDown);

    assertThatThrownBy(
            () ->
                lease(slow)
                    .withWorkerLease(
                        c.attempt(),
                        c.sentAt(),
                        token,
                        t -> {
                          Thread.sleep(LEASE.multipliedBy(10));
                          return ok();
                        }))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(LostLeaseReason.RENEWAL_EXPIRED);
              assertThat(e.renewals()).isEqualTo(1);
            });
    assertThat(token.cause()).contains(CancellationToken.Cause.LEASE_EXPIRED);
  }

  @Test
  void aFirstRenewalFailingWithAnErrorHandsTheStepBackWithoutRunningTheWork() {
    Claimed c = startAndClaim(3);
    AtomicInteger calls = new AtomicInteger();
    Journal broken =
        new ForwardingJournal(inMemory) {
          @Override
          public Instant heartbeat(LeaseToken lease) {
            calls.incrementAndGet();
            throw new FlowsException(ErrorCode.DATABASE_ERROR, "boom", "", "");
          }
        };
    AtomicBoolean ran = new AtomicBoolean();

    assertThatThrownBy(
            () ->
                lease(broken)
                    .withWorkerLease(
                        c.attempt(),
                        c.sentAt(),
                        new CancellationToken(),
                        t -> {
                          ran.set(true);
                          return ok();
                        }))
        .isInstanceOfSatisfying(
            FlowsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_ERROR));
    assertThat(ran).isFalse();
    var completion = JournalChecks.completions(inMemory, c.attempt().lease().runId()).getFirst();
    assertThat(completion.reason()).isEqualTo(CompletionReason.WORKER_ERROR);
    assertThat(completion.trajectoryTail().orElseThrow().get("diagnostic").asText())
        .isEqualTo("renewal_failed");
  }

  @Test
  void aRenewalErrorThatIsNotARefusalEndsTheAttemptAsARetryableWorkerError() {
    Claimed c = startAndClaim(3);
    AtomicInteger calls = new AtomicInteger();
    Journal broken =
        new ForwardingJournal(inMemory) {
          @Override
          public Instant heartbeat(LeaseToken lease) {
            if (calls.incrementAndGet() == 2) {
              throw new FlowsException(ErrorCode.DATABASE_ERROR, "boom", "", "");
            }
            return super.heartbeat(lease);
          }
        };
    CancellationToken token = new CancellationToken();

    LeasedCompletion done =
        lease(broken)
            .withWorkerLease(
                c.attempt(),
                c.sentAt(),
                token,
                t -> {
                  Thread.sleep(LEASE.multipliedBy(10));
                  return ok();
                });

    assertThat(token.cause()).contains(CancellationToken.Cause.RENEWAL_FAILED);
    assertThat(done.ack().reason()).isEqualTo(CompletionReason.WORKER_ERROR);
    var completion = JournalChecks.completions(inMemory, c.attempt().lease().runId()).getFirst();
    assertThat(completion.trajectoryTail().orElseThrow().get("diagnostic").asText())
        .isEqualTo("renewal_failed");
  }

  // ---- one lease keeper per worker (perf-lease)

  private static final int MANY = 200;
  private static final Duration MANY_LEASE = Duration.ofSeconds(3);
  private static final int TICKS_WATCHED = 2;

  @Test
  void aWorkerHoldingManyLeasesRenewsThemAllWithOneJournalCallPerTick() throws Exception {
    for (int i = 0; i < MANY; i++) {
      inMemory.admit(
          new StartRun(
              java.util.Optional.empty(),
              UUID.randomUUID().toString(),
              Specs.run(Specs.lease(Specs.command("s", "true"), MANY_LEASE)),
              java.util.Optional.empty(),
              "test"),
          Admit.queued());
    }
    Instant sent = clock.instant();
    List<ClaimedAttempt> claimed =
        inMemory.claim(
            new ClaimRequest(new WorkerId("w"), Set.of(StepKind.DETERMINISTIC), MANY, MANY_LEASE));
    assertThat(claimed).hasSize(MANY);
    List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    AtomicInteger heartbeats = new AtomicInteger();
    Journal counting =
        new ForwardingJournal(inMemory) {
          @Override
          public Instant heartbeat(LeaseToken lease) {
            heartbeats.incrementAndGet();
            return super.heartbeat(lease);
          }

          @Override
          public LeaseRenewals renewLeases(Collection<LeaseToken> leases) {
            batchSizes.add(leases.size());
            return delegate.renewLeases(leases);
          }
        };
    WorkerLease lease = lease(counting);
    CountDownLatch allWorking = new CountDownLatch(MANY);
    CountDownLatch release = new CountDownLatch(1);
    List<LeasedCompletion> done = new CopyOnWriteArrayList<>();
    List<Thread> attempts = new ArrayList<>();
    for (ClaimedAttempt a : claimed) {
      attempts.add(
          Thread.ofVirtual()
              .start(
                  () ->
                      done.add(
                          lease.withWorkerLease(
                              a,
                              sent,
                              new CancellationToken(),
                              token -> {
                                allWorking.countDown();
                                release.await();
                                return ok();
                              }))));
    }
    assertThat(allWorking.await(30, TimeUnit.SECONDS)).isTrue();
    int callsBeforeAllWorking = batchSizes.size();
    await(() -> batchSizes.size() >= callsBeforeAllWorking + TICKS_WATCHED);
    release.countDown();
    for (Thread t : attempts) {
      t.join(Duration.ofSeconds(30));
    }

    assertThat(done).hasSize(MANY);
    assertThat(done)
        .allSatisfy(d -> assertThat(d.ack().reason()).isEqualTo(CompletionReason.SUCCESS));
    assertThat(heartbeats).as("no lease renewed on its own").hasValue(0);
    assertThat(batchSizes.subList(callsBeforeAllWorking, callsBeforeAllWorking + TICKS_WATCHED))
        .as("each tick renews every held lease in one call")
        .containsOnly(MANY);
    assertThat(batchSizes.stream().mapToInt(Integer::intValue).sum())
        .as("the renewals before the work cover every attempt")
        .isGreaterThanOrEqualTo(MANY);
  }

  @Test
  void anAttemptsFirstRenewalRenewsOnlyTheAttemptsWaitingForTheirsNotEveryHeldLease()
      throws Exception {
    int held = 50;
    Duration longLease = Duration.ofSeconds(30);
    for (int i = 0; i <= held; i++) {
      inMemory.admit(
          new StartRun(
              java.util.Optional.empty(),
              UUID.randomUUID().toString(),
              Specs.run(Specs.lease(Specs.command("s", "true"), longLease)),
              java.util.Optional.empty(),
              "test"),
          Admit.queued());
    }
    Instant sent = clock.instant();
    List<ClaimedAttempt> claimed =
        inMemory.claim(
            new ClaimRequest(
                new WorkerId("w"), Set.of(StepKind.DETERMINISTIC), held + 1, longLease));
    List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    Journal counting =
        new ForwardingJournal(inMemory) {
          @Override
          public LeaseRenewals renewLeases(Collection<LeaseToken> leases) {
            batchSizes.add(leases.size());
            return delegate.renewLeases(leases);
          }
        };
    WorkerLease lease = lease(counting);
    CountDownLatch working = new CountDownLatch(held);
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> attempts = new ArrayList<>();
    for (ClaimedAttempt a : claimed.subList(0, held)) {
      attempts.add(
          Thread.ofVirtual()
              .start(
                  () ->
                      lease.withWorkerLease(
                          a,
                          sent,
                          new CancellationToken(),
                          token -> {
                            working.countDown();
                            release.await();
                            return ok();
                          })));
    }
    assertThat(working.await(30, TimeUnit.SECONDS)).isTrue();
    int before = batchSizes.size();

    LeasedCompletion last =
        lease.withWorkerLease(claimed.get(held), sent, new CancellationToken(), token -> ok());

    assertThat(last.ack().reason()).isEqualTo(CompletionReason.SUCCESS);
    assertThat(batchSizes.subList(before, batchSizes.size()))
        .as("the new attempt's renewal before its work, alone")
        .containsExactly(1);
    release.countDown();
    for (Thread t : attempts) {
      t.join(Duration.ofSeconds(30));
    }
  }

  @Test
  void anAttemptThatSkipsTheFirstRenewalRunsItsWorkAtOnceAndCompletesThroughItsCompleter() {
    Claimed c = startAndClaim(1);
    RenewalRecorder journal = new RenewalRecorder(inMemory, clock);
    AtomicInteger renewalsSeenByWork = new AtomicInteger(-1);
    AtomicInteger completerCalls = new AtomicInteger();

    LeasedCompletion done =
        lease(journal)
            .withWorkerLease(
                c.attempt(),
                c.sentAt(),
                new CancellationToken(),
                LeaseOptions.defaults()
                    .skipFirstRenewal()
                    .completingWith(
                        (l, outcome) -> {
                          completerCalls.incrementAndGet();
                          return inMemory.complete(l, outcome);
                        }),
                token -> {
                  renewalsSeenByWork.set(journal.accepted());
                  return ok();
                });

    assertThat(renewalsSeenByWork).hasValue(0);
    assertThat(completerCalls).hasValue(1);
    assertThat(done.ack().reason()).isEqualTo(CompletionReason.SUCCESS);
    assertThat(JournalChecks.completions(inMemory, c.attempt().lease().runId())).hasSize(1);
  }

  @Test
  void aLeaseGrantedWithItsElectionIsStillRenewedWhileTheWorkRuns() {
    Claimed c = startAndClaim(1);

    LeasedCompletion done =
        lease(inMemory)
            .withWorkerLease(
                c.attempt(),
                c.sentAt(),
                new CancellationToken(),
                LeaseOptions.defaults().skipFirstRenewal().completingWith(inMemory::complete),
                token -> {
                  Thread.sleep(LEASE.multipliedBy(2));
                  return ok();
                });

    assertThat(done.renewals()).isGreaterThanOrEqualTo(1);
    assertThat(JournalChecks.completions(inMemory, c.attempt().lease().runId())).hasSize(1);
  }

  private static void await(java.util.function.BooleanSupplier condition)
      throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition met within a minute").isLessThan(until);
      Thread.sleep(10);
    }
  }

  // ---- asynchronous work (withWorkerLeaseAsync): where the completion runs (perf-mcp3)

  /**
   * Completes {@code c} asynchronously with an answer given by {@code answerer}; the thread it
   * completed on.
   */
  private Thread completedOn(Claimed c, java.util.function.Consumer<Runnable> answerer)
      throws Exception {
    AtomicReference<Thread> completer = new AtomicReference<>();
    LeasedCompletion done =
        lease(inMemory)
            .withWorkerLeaseAsync(
                c.attempt(),
                c.sentAt(),
                new CancellationToken(),
                LeaseOptions.defaults()
                    .skipFirstRenewal()
                    .completingWith(
                        (l, outcome) -> {
                          completer.set(Thread.currentThread());
                          return inMemory.complete(l, outcome);
                        }),
                tok -> {
                  java.util.concurrent.CompletableFuture<StepOutcome> answer =
                      new java.util.concurrent.CompletableFuture<>();
                  answerer.accept(() -> answer.complete(ok()));
                  return answer;
                })
            .get(10, TimeUnit.SECONDS);
    assertThat(done.ack().reason()).isEqualTo(CompletionReason.SUCCESS);
    return completer.get();
  }

  @Test
  void anAsynchronousAttemptIsCompletedOnTheVirtualThreadThatAnsweredItWithoutAnotherHandOff()
      throws Exception {
    AtomicReference<Thread> answering = new AtomicReference<>();
    Thread completer =
        completedOn(
            startAndClaim(1),
            answer ->
                answering.set(
                    Thread.ofVirtual()
                        .start(
                            () -> {
                              sleepBriefly();
                              answer.run();
                            })));
    assertThat(completer).isSameAs(answering.get());
  }

  @Test
  void anAsynchronousAttemptAnsweredOnAPlatformThreadIsCompletedOnAVirtualThreadInstead()
      throws Exception {
    AtomicReference<Thread> answering = new AtomicReference<>();
    Thread completer =
        completedOn(
            startAndClaim(1),
            answer ->
                answering.set(
                    Thread.ofPlatform()
                        .start(
                            () -> {
                              sleepBriefly();
                              answer.run();
                            })));
    assertThat(completer).isNotSameAs(answering.get());
    assertThat(completer.isVirtual()).isTrue();
  }

  /** Lets withWorkerLeaseAsync register its continuation before the answer arrives. */
  private static void sleepBriefly() {
    try {
      Thread.sleep(CLOCK_READ_GAP);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
