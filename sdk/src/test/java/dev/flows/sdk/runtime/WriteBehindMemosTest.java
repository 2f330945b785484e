package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.MemoEffect;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An {@code f.step} memo is written behind the body: the body goes on, the memos handed over
 * meanwhile are written in order in the next batch, and nothing that depends on them (a child, an
 * effect, the run's end) is journaled before they are.
 */
class WriteBehindMemosTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final FlowHeader HEADER =
      FlowHeader.named("behind").version("1").mcp("tickets").build();
  private static final long WAIT_S = 20;

  private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final InMemoryJournal journal = new InMemoryJournal(clock);
  private final FlowResolver resolver = new FlowResolver();
  private final SdkConfig config =
      SdkConfig.DEFAULTS.toBuilder()
          .childPoll(Duration.ofMillis(20))
          .rootMaxIterations(3)
          .mcpMaxIterations(3)
          .build();

  /** Runs before a memo batch reaches the journal: may wait, or throw as a dead worker would. */
  @FunctionalInterface
  interface BatchHook {
    void before(LeaseToken lease, int call) throws Exception;
  }

  /** Runs before every other journal verb with its name and arguments. */
  @FunctionalInterface
  interface VerbHook {
    void before(String verb, Object[] args);
  }

  private volatile BatchHook batchHook = (lease, call) -> {};
  private volatile VerbHook verbHook = (verb, args) -> {};
  private final AtomicInteger batchCalls = new AtomicInteger();
  private final List<List<String>> batches = new CopyOnWriteArrayList<>();
  private final CountDownLatch dead = new CountDownLatch(1);
  private final CountDownLatch batchRefused = new CountDownLatch(1);

  @AfterEach
  void releaseDeadWriters() {
    dead.countDown();
  }

  private final Journal observed =
      (Journal)
          Proxy.newProxyInstance(
              Journal.class.getClassLoader(),
              new Class<?>[] {Journal.class},
              (proxy, m, args) -> {
                if (m.getName().equals("recordConfirmedEffects")) {
                  batchHook.before((LeaseToken) args[0], batchCalls.getAndIncrement());
                  List<String> surfaces = new ArrayList<>();
                  for (Object memo : (List<?>) args[1]) {
                    surfaces.add(((MemoEffect) memo).surfacePath());
                  }
                  batches.add(surfaces);
                } else {
                  verbHook.before(m.getName(), args);
                }
                try {
                  return m.invoke(journal, args);
                } catch (InvocationTargetException e) {
                  if (m.getName().equals("recordConfirmedEffects")) {
                    batchRefused.countDown();
                  }
                  throw e.getCause();
                }
              });

  private RunRef start(Flow flow) {
    return DurableFlowTest.start(journal, resolver, flow, JSON.objectNode(), config);
  }

  private static Flow flow(DurableFlowTest.TestFlow.Body body) {
    return new DurableFlowTest.TestFlow(HEADER, body);
  }

  private RunSnapshot drive(MiniWorker w, RunRef root, BooleanSupplier stop) throws Exception {
    return DurableFlowTest.drive(journal, w, root, stop);
  }

  /**
   * Holds the first memo batch: signals {@code sent} once it is on its way, then lets it reach the
   * journal after {@code until} (and {@code then}).
   */
  private static BatchHook holdFirstBatch(
      CountDownLatch sent, CountDownLatch until, Runnable then) {
    return (lease, call) -> {
      if (call == 0) {
        sent.countDown();
        await(until);
        then.run();
      }
    };
  }

  /** The surfaces of the memos a success hands to its completion. */
  private static List<String> carried(Object outcome) {
    return ((StepOutcome.Succeeded) outcome).memos().stream().map(MemoEffect::surfacePath).toList();
  }

  private List<String> journaledMemos(RunRef run) {
    return journal.entries(run).stream()
        .map(r -> r.entry())
        .filter(e -> e instanceof JournalEntry.EffectConfirmed)
        .map(e -> ((JournalEntry.EffectConfirmed) e).surfacePath())
        .filter(p -> p.startsWith("/memo/"))
        .toList();
  }

  private static void await(CountDownLatch latch) throws InterruptedException {
    if (!latch.await(WAIT_S, TimeUnit.SECONDS)) {
      throw new AssertionError("timed out waiting");
    }
  }

  private static JsonNode step(Ctx f, int i, Map<Integer, AtomicInteger> runs) {
    return f.step(
        "s" + i,
        () -> {
          runs.computeIfAbsent(i, k -> new AtomicInteger()).incrementAndGet();
          return i;
        });
  }

  @Test
  void aBodyGoesOnWhileItsMemosAreWrittenAndThoseHandedOverMeanwhileGoInOrderWithItsEnd()
      throws Exception {
    CountDownLatch firstBatchSent = new CountDownLatch(1);
    CountDownLatch bodyReturned = new CountDownLatch(1);
    // Not acknowledged until the body has made all its steps: it does not wait for it.
    batchHook = holdFirstBatch(firstBatchSent, bodyReturned, () -> {});
    AtomicReference<List<String>> journaledAtEnd = new AtomicReference<>();
    AtomicReference<List<String>> carriedByEnd = new AtomicReference<>();
    verbHook =
        (verb, args) -> {
          if (verb.equals("complete") && args[1] instanceof StepOutcome.Succeeded) {
            journaledAtEnd.set(journaledMemos(((LeaseToken) args[0]).runId()));
            carriedByEnd.set(carried(args[1]));
          }
        };
    RunRef root =
        start(
            flow(
                (f, in) -> {
                  f.step("s1", () -> 1);
                  // The writer has taken the first memo alone before the second is handed over.
                  f.step(
                      "s2",
                      () -> {
                        await(firstBatchSent);
                        return 2;
                      });
                  for (int i = 3; i <= 5; i++) {
                    int v = i;
                    f.step("s" + i, () -> v);
                  }
                  bodyReturned.countDown();
                  return JSON.textNode("done");
                }));
    MiniWorker w = new MiniWorker(observed, new FlowBodyRunner(observed, resolver, config));

    assertThat(drive(w, root, () -> false).status()).isEqualTo(RunStatus.SUCCEEDED);
    // The memos handed over while the first batch was on its way follow it in order: as the next
    // batch, or with the end when the body ended first.
    assertThat(batches.getFirst()).containsExactly("/memo/1");
    List<String> after = new ArrayList<>();
    batches.subList(1, batches.size()).forEach(after::addAll);
    after.addAll(carriedByEnd.get());
    assertThat(batches).hasSizeLessThanOrEqualTo(2);
    assertThat(after).containsExactly("/memo/2", "/memo/3", "/memo/4", "/memo/5");
    assertThat(journaledAtEnd.get())
        .as("every memo not carried by the end is journaled before it")
        .containsExactlyElementsOf(
            List.of("/memo/1", "/memo/2", "/memo/3", "/memo/4", "/memo/5")
                .subList(0, 5 - carriedByEnd.get().size()));
    assertThat(journaledMemos(root))
        .containsExactly("/memo/1", "/memo/2", "/memo/3", "/memo/4", "/memo/5");
  }

  @Test
  void aShortBodysMemosAreJournaledByItsCompletionWithNoTransactionOfTheirOwn() throws Exception {
    AtomicReference<List<String>> carriedByEnd = new AtomicReference<>();
    verbHook =
        (verb, args) -> {
          if (verb.equals("complete") && args[1] instanceof StepOutcome.Succeeded) {
            carriedByEnd.set(carried(args[1]));
          }
        };
    Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
    RunRef root =
        start(
            flow(
                (f, in) -> {
                  for (int i = 1; i <= 3; i++) {
                    step(f, i, runs);
                  }
                  return JSON.textNode("done");
                }));
    // However slow this machine, the body ends within the delay.
    SdkConfig patient = config.toBuilder().memoDelay(Duration.ofMinutes(1)).build();
    MiniWorker w = new MiniWorker(observed, new FlowBodyRunner(observed, resolver, patient));

    assertThat(drive(w, root, () -> false).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(batches).as("no memo batch of their own").isEmpty();
    assertThat(carriedByEnd.get()).containsExactly("/memo/1", "/memo/2", "/memo/3");
    assertThat(journaledMemos(root)).containsExactly("/memo/1", "/memo/2", "/memo/3");
  }

  @Test
  void aMemoIsSentOnceTheDelayPassesWhileTheBodyStillRuns() throws Exception {
    AtomicReference<List<String>> seenWhileRunning = new AtomicReference<>();
    RunRef root =
        start(
            flow(
                (f, in) -> {
                  f.step("s1", () -> 1);
                  f.step(
                      "s2",
                      () -> {
                        // A long step: the memo before it does not wait for the body's end.
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
                        while (batches.isEmpty() && System.nanoTime() < deadline) {
                          Thread.sleep(1);
                        }
                        seenWhileRunning.set(List.copyOf(batches.getFirst()));
                        return 2;
                      });
                  return JSON.textNode("done");
                }));
    MiniWorker w = new MiniWorker(observed, new FlowBodyRunner(observed, resolver, config));

    assertThat(drive(w, root, () -> false).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(seenWhileRunning.get()).containsExactly("/memo/1");
    assertThat(journaledMemos(root)).containsExactly("/memo/1", "/memo/2");
  }

  @Test
  void noChildIsAdmittedAndNoResultJournaledBeforeTheMemosBeforeThemAreDurable() throws Exception {
    // Slow memo writes: without the barriers the child and the success would overtake them.
    batchHook = (lease, call) -> Thread.sleep(50);
    List<List<String>> journaledAtChild = new CopyOnWriteArrayList<>();
    AtomicReference<List<String>> journaledAtEnd = new AtomicReference<>();
    AtomicReference<RunRef> rootId = new AtomicReference<>();
    verbHook =
        (verb, args) -> {
          if (verb.equals("admit") && args[1] instanceof Admit.Queued && rootId.get() != null) {
            journaledAtChild.add(journaledMemos(rootId.get()));
          }
          if (verb.equals("complete")
              && ((LeaseToken) args[0]).runId().equals(rootId.get())
              && args[1] instanceof StepOutcome.Succeeded) {
            List<String> withEnd = new ArrayList<>(journaledMemos(rootId.get()));
            withEnd.addAll(carried(args[1]));
            journaledAtEnd.set(withEnd);
          }
        };
    Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
    RunRef root =
        start(
            flow(
                (f, in) -> {
                  step(f, 1, runs);
                  step(f, 2, runs);
                  f.mcp("tickets").tool("classify").call(Map.of("text", "x"));
                  step(f, 4, runs);
                  return JSON.textNode("done");
                }));
    rootId.set(root);
    MiniWorker w = new MiniWorker(observed, new FlowBodyRunner(observed, resolver, config));

    assertThat(drive(w, root, () -> false).status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(journaledAtChild).containsExactly(List.of("/memo/1", "/memo/2"));
    assertThat(journaledAtEnd.get()).containsExactly("/memo/1", "/memo/2", "/memo/4");
  }

  @Test
  void aRefusedMemoFailsTheAttemptAtTheNextBarrierWithItsCodeAndNothingAfterItIsJournaled()
      throws Exception {
    CountDownLatch firstBatchSent = new CountDownLatch(1);
    CountDownLatch secondHandedOver = new CountDownLatch(1);
    // The lease runs out while both memos are pending: the journal refuses the batch.
    batchHook =
        holdFirstBatch(
            firstBatchSent, secondHandedOver, () -> clock.advance(Duration.ofSeconds(31)));
    AtomicReference<String> refusedAt = new AtomicReference<>();
    AtomicReference<ErrorCode> refusal = new AtomicReference<>();
    Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
    RunRef root =
        start(
            flow(
                (f, in) -> {
                  step(f, 1, runs);
                  f.step(
                      "s2",
                      () -> {
                        await(firstBatchSent);
                        return 2;
                      });
                  secondHandedOver.countDown();
                  try {
                    f.mcp("tickets").tool("classify").call(Map.of("text", "x"));
                  } catch (FlowsError e) {
                    refusal.set(ErrorCode.fromWire(e.code()).orElseThrow());
                    refusedAt.set("f.mcp");
                    throw e;
                  }
                  step(f, 4, runs);
                  return JSON.textNode("done");
                }));
    MiniWorker w = new MiniWorker(observed, new FlowBodyRunner(observed, resolver, config));
    drive(w, root, () -> refusal.get() != null);
    for (Thread t : List.copyOf(w.bodies)) {
      t.join(TimeUnit.SECONDS.toMillis(WAIT_S));
    }

    assertThat(refusedAt.get()).isEqualTo("f.mcp");
    assertThat(refusal.get()).isEqualTo(ErrorCode.LEASE_CONFLICT);
    // The first batch was refused: the second memo, pending behind it, was never sent.
    assertThat(batches).containsExactly(List.of("/memo/1"));
    assertThat(journaledMemos(root)).isEmpty();
    assertThat(journal.children(root)).as("the call after the refused memos").isEmpty();
    assertThat(runs).doesNotContainKey(4);
    assertThat(
            journal.entries(root).stream()
                .filter(r -> r.entry() instanceof JournalEntry.StepCompleted))
        .isEmpty();
  }

  @Test
  void aMemoRefusedWhileTheBodyRunsIsThrownByALaterStepAndNoBatchFollowsIt() throws Exception {
    batchHook =
        (lease, call) -> {
          if (call == 0) {
            clock.advance(Duration.ofSeconds(31));
          }
        };
    AtomicReference<ErrorCode> refusal = new AtomicReference<>();
    RunRef root =
        start(
            flow(
                (f, in) -> {
                  try {
                    // Steps go on until one of them is told its memos were refused.
                    for (int i = 1; ; i++) {
                      int v = i;
                      f.step(
                          "s" + i,
                          () -> {
                            if (v == 2) {
                              await(batchRefused);
                            }
                            return v;
                          });
                    }
                  } catch (FlowsError e) {
                    refusal.set(ErrorCode.fromWire(e.code()).orElseThrow());
                    throw e;
                  }
                }));
    MiniWorker w = new MiniWorker(observed, new FlowBodyRunner(observed, resolver, config));
    drive(w, root, () -> refusal.get() != null);

    assertThat(refusal.get()).isEqualTo(ErrorCode.LEASE_CONFLICT);
    assertThat(batches).containsExactly(List.of("/memo/1"));
    assertThat(journaledMemos(root)).isEmpty();
  }

  @Test
  void aWorkerKilledWithMemosPendingReplaysAndRerunsExactlyTheUnacknowledgedSteps()
      throws Exception {
    CountDownLatch firstBatchSent = new CountDownLatch(1);
    CountDownLatch allHandedOver = new CountDownLatch(1);
    CountDownLatch secondBatchStuck = new CountDownLatch(1);
    batchHook =
        (lease, call) -> {
          if (lease.attempt() != 1) {
            return;
          }
          if (call == 0) {
            firstBatchSent.countDown();
            await(allHandedOver);
          } else {
            // The worker dies with this batch unacknowledged: it never reaches the journal.
            secondBatchStuck.countDown();
            dead.await();
            throw new IllegalStateException("the worker is dead");
          }
        };
    verbHook =
        (verb, args) -> {
          if (verb.equals("complete")
              && args[1] instanceof StepOutcome.Succeeded
              && ((LeaseToken) args[0]).attempt() == 1) {
            // The worker dies with the end (and the memos it carries) unacknowledged.
            secondBatchStuck.countDown();
            try {
              dead.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("the worker is dead");
          }
        };
    Map<Integer, AtomicInteger> runs = new ConcurrentHashMap<>();
    AtomicInteger attempts = new AtomicInteger();
    RunRef root =
        start(
            flow(
                (f, in) -> {
                  attempts.incrementAndGet();
                  step(f, 1, runs);
                  f.step(
                      "s2",
                      () -> {
                        await(firstBatchSent);
                        runs.computeIfAbsent(2, k -> new AtomicInteger()).incrementAndGet();
                        return 2;
                      });
                  for (int i = 3; i <= 6; i++) {
                    step(f, i, runs);
                  }
                  allHandedOver.countDown();
                  return JSON.textNode("done");
                }));
    MiniWorker w = new MiniWorker(observed, new FlowBodyRunner(observed, resolver, config));
    drive(w, root, () -> secondBatchStuck.getCount() == 0);
    assertThat(journal.run(root).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    RunSnapshot done = DurableFlowTest.killAndReplay(journal, clock, w, root);

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(attempts.get()).isEqualTo(2);
    assertThat(runs.get(1).get()).as("acknowledged: not run again").isEqualTo(1);
    for (int i = 2; i <= 6; i++) {
      assertThat(runs.get(i).get()).as("s%d was pending when the worker died", i).isEqualTo(2);
    }
    assertThat(journaledMemos(root))
        .containsExactly("/memo/1", "/memo/2", "/memo/3", "/memo/4", "/memo/5", "/memo/6");
    assertThat(Optional.of(done.steps().getFirst().output().orElseThrow().asText()))
        .contains("done");
  }
}
