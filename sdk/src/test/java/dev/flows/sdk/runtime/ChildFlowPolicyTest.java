package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.sdk.ChildFailedException;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.Pending;
import dev.flows.sdk.RetryPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Child flow calls with a policy ({@code f.flow(name).timeout(d).retry(p)}) through the real worker
 * on Postgres.
 */
class ChildFlowPolicyTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static PostgresJournal journal;

  @BeforeAll
  static void db() {
    journal =
        PostgresJournal.connect(
            JournalStoreConfig.forUrl(TestDatabase.fresh("child_flow_policy").jdbcUrl()));
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  private static DurableFlowTest.TestFlow flow(String name, DurableFlowTest.TestFlow.Body body) {
    return new DurableFlowTest.TestFlow(FlowHeader.named(name).build(), body);
  }

  private static RunRef start(FlowsEngine engine, Flow flow) {
    return engine
        .admit(
            new LoadedFlow(
                flow,
                new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
                Set.of(),
                Path.of(".")),
            JSON.objectNode(),
            Optional.empty(),
            Inventory.empty())
        .runId();
  }

  /** A worker whose bodies give their attempt back after 300 ms and are rechecked hourly. */
  private static FlowsEngine engine(Flow... flows) {
    FlowsEngine engine =
        EngineEndToEndTest.engine(
            journal,
            SdkConfig.DEFAULTS.toBuilder()
                .suspendAfter(Duration.ofMillis(300))
                .suspendRecheck(Duration.ofHours(1))
                .childPoll(Duration.ofMillis(50))
                .build());
    for (Flow f : flows) {
      engine.register(f);
    }
    engine.startWorker();
    return engine;
  }

  private static JsonNode output(RunSnapshot s) {
    return s.steps().getFirst().output().orElseThrow();
  }

  private static JsonNode failure(ChildFailedException e) {
    return JSON.objectNode()
        .put("code", e.code())
        .put("message", e.getMessage())
        .put("child", e.child().value())
        .put("childMessage", e.diagnostic().path("message").asText());
  }

  /** The memos the run journaled at surfaces under {@code prefix}, in journal order. */
  private static List<JsonNode> memos(RunRef run, String prefix) {
    return journal.entries(run).stream()
        .map(r -> r.entry())
        .filter(
            e -> e instanceof JournalEntry.EffectConfirmed c && c.surfacePath().startsWith(prefix))
        .map(e -> ((JournalEntry.EffectConfirmed) e).output().orElseThrow())
        .toList();
  }

  private static long suspensions(RunRef run) {
    return journal.entries(run).stream()
        .map(r -> r.entry())
        .filter(
            e -> e instanceof JournalEntry.StepCompleted c && c.reason().wire().equals("suspended"))
        .count();
  }

  /** A child that fails (code {@code code}) until {@code failures} of its runs failed. */
  private static Flow flaky(String name, int failures, ErrorCode code) {
    Set<RunRef> runs = ConcurrentHashMap.newKeySet();
    return flow(
        name,
        (f, in) -> {
          runs.add(new RunRef(f.runId().value()));
          if (runs.size() <= failures) {
            throw new FlowsException(
                code, "run " + runs.size() + " of " + name + " failed", name, "retry");
          }
          return JSON.objectNode().put("ok", runs.size());
        });
  }

  @Test
  void aChildOutlivingItsTimeoutIsCancelledAndTheCallFailsTimeoutAlsoOnReplay() throws Exception {
    Flow child =
        flow(
            "outlives",
            (f, in) -> {
              f.awaitSignal("never", Duration.ofHours(1));
              return JSON.nullNode();
            });
    Flow parent =
        flow(
            "parent-timeout",
            (f, in) -> {
              JsonNode r;
              try {
                f.flow("outlives").timeout(Duration.ofMillis(1500)).call(null);
                r = JSON.textNode("no timeout");
              } catch (ChildFailedException e) {
                r = failure(e);
              }
              // Gives the attempt back: the answer below is the replay's, after the deadline.
              f.sleep(Duration.ofMillis(300));
              return r;
            });
    try (FlowsEngine engine = engine(child, parent)) {
      RunRef root = start(engine, parent);
      Instant started = Instant.now();
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(Duration.between(started, Instant.now()))
          .as("woken at the deadline, not at the hourly recheck")
          .isLessThan(Duration.ofSeconds(30));
      assertThat(suspensions(root)).as("waited without holding its attempt").isGreaterThan(1);
      JsonNode out = output(done);
      assertThat(out.path("code").asText()).isEqualTo("timeout");
      assertThat(out.path("message").asText())
          .startsWith("f.flow(\"outlives\")")
          .contains("PT1.5S");
      RunRef c = Lowering.childId(root, 1);
      assertThat(out.path("child").asText()).isEqualTo(c.value());
      assertThat(journal.children(root)).containsExactly(c);
      assertThat(journal.run(c).orElseThrow().status()).isEqualTo(RunStatus.CANCELED);
      assertThat(ChildReports.cancelReason(journal, c)).startsWith("timeout: f.flow(\"outlives\")");
      List<JsonNode> deadlines = memos(root, "/memo/1/flow/1/deadline");
      assertThat(deadlines).as("one deadline, kept by the replay").hasSize(1);
      assertThat(out.path("message").asText())
          .contains(deadlines.getFirst().path("deadline").asText());
    }
  }

  @Test
  void aChildFailingTwiceThenSucceedingUnderRetryAnswersItsResultWithThreeChildRuns()
      throws Exception {
    Flow child = flaky("flaky-twice", 2, ErrorCode.FLOW_FAILED);
    Flow parent =
        flow(
            "parent-retry",
            (f, in) ->
                f.flow("flaky-twice")
                    .retry(
                        RetryPolicy.attempts(3)
                            .backoff(Duration.ofMillis(500), 1.0, Duration.ofMillis(500)))
                    .call(Map.of("order", 7)));
    try (FlowsEngine engine = engine(child, parent)) {
      RunRef root = start(engine, parent);
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(output(done).path("ok").asInt()).isEqualTo(3);
      List<RunRef> attempts =
          List.of(
              Lowering.childId(root, 1, 1),
              Lowering.childId(root, 1, 2),
              Lowering.childId(root, 1, 3));
      assertThat(journal.children(root)).containsExactlyInAnyOrderElementsOf(attempts);
      assertThat(attempts.stream().map(r -> journal.run(r).orElseThrow().status()))
          .containsExactly(RunStatus.FAILED, RunStatus.FAILED, RunStatus.SUCCEEDED);
      assertThat(attempts.stream().map(r -> journal.run(r).orElseThrow().parentRunId()))
          .allMatch(p -> p.equals(Optional.of(root)));
      List<JsonNode> decided = memos(root, "/memo/1/flow/");
      assertThat(decided).extracting(m -> m.path("attempt").asInt()).containsExactly(1, 2, 3);
      assertThat(decided.get(1).path("after").path("message").asText()).contains("run 1 of");
      assertThat(suspensions(root))
          .as("a backoff past suspendAfter is a durable timer, not a sleeping thread")
          .isGreaterThanOrEqualTo(2);
    }
  }

  @Test
  void aChildFailingEveryAttemptFailsTheCallRetriesExhaustedWithTheLastDiagnostic()
      throws Exception {
    Flow child = flaky("always-fails", 100, ErrorCode.FLOW_FAILED);
    Flow parent =
        flow(
            "parent-exhausted",
            (f, in) -> {
              try {
                f.flow("always-fails")
                    .retry(
                        RetryPolicy.attempts(3)
                            .backoff(Duration.ofMillis(20), 2.0, Duration.ofMillis(50)))
                    .call(null);
                return JSON.textNode("no failure");
              } catch (ChildFailedException e) {
                return failure(e);
              }
            });
    try (FlowsEngine engine = engine(child, parent)) {
      RunRef root = start(engine, parent);
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = output(done);
      assertThat(out.path("code").asText()).isEqualTo("retries_exhausted");
      assertThat(out.path("message").asText()).contains("all 3 attempts").contains("run 3 of");
      assertThat(out.path("childMessage").asText()).isEqualTo("run 3 of always-fails failed");
      assertThat(out.path("child").asText()).isEqualTo(Lowering.childId(root, 1, 3).value());
      assertThat(journal.children(root)).hasSize(3);
    }
  }

  @Test
  void aFailureWhoseCodeThePolicyNamesIsNotRetried() throws Exception {
    Flow child = flaky("refuses", 100, ErrorCode.INVALID_INPUT);
    Flow parent =
        flow(
            "parent-no-retry",
            (f, in) -> {
              try {
                f.flow("refuses")
                    .retry(RetryPolicy.attempts(3).doNotRetry("invalid_input"))
                    .call(null);
                return JSON.textNode("no failure");
              } catch (ChildFailedException e) {
                return failure(e);
              }
            });
    try (FlowsEngine engine = engine(child, parent)) {
      RunRef root = start(engine, parent);
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      JsonNode out = output(done);
      assertThat(out.path("code").asText()).isEqualTo("invalid_input");
      assertThat(out.path("childMessage").asText()).isEqualTo("run 1 of refuses failed");
      assertThat(journal.children(root)).containsExactly(Lowering.childId(root, 1));
    }
  }

  @Test
  void retriedAndTimedCallsStartedWithoutWaitingAreAwaitedByAll() throws Exception {
    Flow flaky = flaky("flaky-async", 1, ErrorCode.FLOW_FAILED);
    Flow stuck =
        flow(
            "stuck-async",
            (f, in) -> {
              f.awaitSignal("never", Duration.ofHours(1));
              return JSON.nullNode();
            });
    Flow parent =
        flow(
            "parent-all",
            (f, in) -> {
              Pending<JsonNode> retried =
                  f.flow("flaky-async")
                      .retry(
                          RetryPolicy.attempts(2)
                              .backoff(Duration.ofMillis(10), 1.0, Duration.ofMillis(10)))
                      .callAsync(null);
              Pending<JsonNode> timed =
                  f.flow("stuck-async").timeout(Duration.ofMillis(800)).callAsync(null);
              Pending<Integer> plain = f.flow(ChildFlowTest.Doubler.class).callAsync(21);
              try {
                f.all(retried, timed, plain);
                return JSON.textNode("no failure");
              } catch (ChildFailedException e) {
                return JSON.objectNode()
                    .put("code", e.code())
                    .put("retried", retried.get().path("ok").asInt())
                    .put("plain", plain.get());
              }
            });
    try (FlowsEngine engine = engine(flaky, stuck, parent)) {
      RunRef root = start(engine, parent);
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = output(done);
      assertThat(out.path("code").asText()).isEqualTo("timeout");
      assertThat(out.path("retried").asInt()).isEqualTo(2);
      assertThat(out.path("plain").asInt()).isEqualTo(42);
      assertThat(journal.children(root)).hasSize(4);
    }
  }

  @Test
  void aChildFlowCallWithoutAPolicyJournalsNoPolicyRecordsAndItsChildSpecIsUnchanged()
      throws Exception {
    Flow parent =
        flow(
            "parent-defaults",
            (f, in) -> {
              int plain = f.flow(ChildFlowTest.Doubler.class).call(4);
              int timed = f.flow(ChildFlowTest.Doubler.class).timeout(Duration.ofHours(1)).call(4);
              return JSON.arrayNode().add(plain).add(timed);
            });
    try (FlowsEngine engine = engine(parent)) {
      RunRef root = start(engine, parent);
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(output(done).toString()).isEqualTo("[8,8]");
      assertThat(memos(root, "/memo/1/"))
          .as("the call without a policy journals no record")
          .isEmpty();
      assertThat(memos(root, "/memo/2/flow/")).hasSize(2);
      RunSnapshot plain = journal.run(Lowering.childId(root, 1)).orElseThrow();
      RunSnapshot timed = journal.run(Lowering.childId(root, 2)).orElseThrow();
      assertThat(plain.specHash()).isEqualTo(timed.specHash());
    }
  }
}
