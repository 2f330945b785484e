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
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.Pending;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Child flows through the real worker on Postgres: a flow's body starts another flow's run. */
class ChildFlowTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static PostgresJournal journal;

  @BeforeAll
  static void db() {
    journal =
        PostgresJournal.connect(
            JournalStoreConfig.forUrl(TestDatabase.fresh("child_flows").jdbcUrl()));
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  private static DurableFlowTest.TestFlow flow(String name, DurableFlowTest.TestFlow.Body body) {
    return new DurableFlowTest.TestFlow(FlowHeader.named(name).build(), body);
  }

  private static RunRef start(FlowsEngine engine, Flow flow, JsonNode input) {
    return engine
        .admit(
            new LoadedFlow(
                flow,
                new FlowBodyInstruction.Origin.ClassFlow(flow.getClass().getName()),
                Set.of(),
                Path.of(".")),
            input,
            Optional.empty(),
            Inventory.empty())
        .runId();
  }

  private static FlowsEngine engine(Flow... flows) {
    FlowsEngine engine =
        EngineEndToEndTest.engine(
            journal,
            SdkConfig.DEFAULTS.toBuilder()
                .suspendAfter(Duration.ofMillis(300))
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

  @Test
  void aParentGetsItsChildsResultAndItsReplayFindsTheSameChildRun() throws Exception {
    AtomicInteger childRuns = new AtomicInteger();
    Flow child =
        flow(
            "refund-ok",
            (f, in) -> {
              childRuns.incrementAndGet();
              return JSON.objectNode().put("refunded", in.path("cents").asInt());
            });
    Flow parent =
        flow(
            "parent-ok",
            (f, in) -> {
              JsonNode r = f.flow("refund-ok").call(Map.of("cents", 700));
              f.sleep(Duration.ofMillis(200)); // gives the attempt back: the body replays
              return r;
            });
    try (FlowsEngine engine = engine(child, parent)) {
      RunRef root = start(engine, parent, JSON.objectNode());
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(output(done).path("refunded").asInt()).isEqualTo(700);
      assertThat(done.steps().getFirst().attempts()).as("the parent replayed").isGreaterThan(1);
      List<RunRef> children = journal.children(root);
      assertThat(children).containsExactly(Lowering.childId(root, 1));
      RunSnapshot c = journal.run(children.getFirst()).orElseThrow();
      assertThat(c.parentRunId()).contains(root);
      assertThat(c.spec().path("name").asText()).isEqualTo("refund-ok");
      assertThat(childRuns.get()).as("the child body ran once").isEqualTo(1);
    }
  }

  /** A flow class started by its class. */
  /** A typed child flow: an Integer in, an Integer out. */
  public static final class Doubler implements Flow<Integer, Integer> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("doubler").build();
    }

    @Override
    public Integer run(Ctx f, Integer input) {
      return input * 2;
    }
  }

  @Test
  void aParentStartsChildrenByClassWithoutWaitingAndGetsTheirResultsInOrder() throws Exception {
    Flow parent =
        flow(
            "parent-async",
            (f, in) -> {
              Pending<Integer> one = f.flow(Doubler.class).callAsync(1);
              Pending<Integer> two = f.flow(Doubler.class).callAsync(21);
              List<Integer> both = f.all(List.of(one, two));
              return JSON.arrayNode().add(both.get(0)).add(both.get(1));
            });
    try (FlowsEngine engine = engine(parent)) {
      RunRef root = start(engine, parent, JSON.objectNode());
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(output(done).toString()).isEqualTo("[2,42]");
      assertThat(journal.children(root)).hasSize(2);
    }
  }

  @Test
  void cancellingAParentWaitingOnAChildFlowCancelsTheChild() throws Exception {
    Flow child =
        flow(
            "stuck",
            (f, in) -> {
              f.awaitSignal("never", Duration.ofHours(1));
              return JSON.nullNode();
            });
    Flow parent = flow("parent-cancel", (f, in) -> f.flow("stuck").call(null));
    try (FlowsEngine engine = engine(child, parent)) {
      RunRef root = start(engine, parent, JSON.objectNode());
      RunRef childRun = Lowering.childId(root, 1);
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (System.nanoTime() < until && !suspended(root)) {
        journal.awaitWork(Duration.ofMillis(50));
      }
      assertThat(suspended(root)).as("the parent gave its attempt back").isTrue();
      assertThat(journal.run(childRun).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);

      journal.cancelRun(root, "the customer withdrew");

      assertThat(journal.run(root).orElseThrow().status()).isEqualTo(RunStatus.CANCELED);
      assertThat(journal.run(childRun).orElseThrow().status()).isEqualTo(RunStatus.CANCELED);
    }
  }

  /** Whether the run's body step last ended suspended (its body waits without an attempt). */
  private static boolean suspended(RunRef run) {
    return journal.entries(run).stream()
        .map(r -> r.entry())
        .anyMatch(
            e ->
                e instanceof JournalEntry.StepCompleted c && c.reason().wire().equals("suspended"));
  }

  @Test
  void aFailingChildsDiagnosticReachesTheParentAsChildFailedException() throws Exception {
    Flow child =
        flow(
            "broken",
            (f, in) -> {
              throw new FlowsException(
                  ErrorCode.INVALID_INPUT, "order 42 has no charge", "refund", "charge first");
            });
    Flow parent =
        flow(
            "parent-fail",
            (f, in) -> {
              try {
                f.flow("broken").call(Map.of("order", 42));
                return JSON.textNode("no failure");
              } catch (ChildFailedException e) {
                return JSON.objectNode()
                    .put("code", e.code())
                    .put("message", e.getMessage())
                    .put("child", e.child().value())
                    .put("childDiagnostic", e.diagnostic().path("message").asText());
              }
            });
    try (FlowsEngine engine = engine(child, parent)) {
      RunRef root = start(engine, parent, JSON.objectNode());
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode out = output(done);
      assertThat(out.path("code").asText()).isEqualTo("invalid_input");
      assertThat(out.path("message").asText())
          .startsWith("f.flow(\"broken\")")
          .contains("order 42 has no charge");
      assertThat(out.path("childDiagnostic").asText()).isEqualTo("order 42 has no charge");
      assertThat(out.path("child").asText()).isEqualTo(Lowering.childId(root, 1).value());
    }
  }

  @Test
  void startingAFlowNobodyHasFailsTheParentFlowNotFoundNamingIt() throws Exception {
    Flow parent = flow("parent-unknown", (f, in) -> f.flow("nowhere").call(null));
    try (FlowsEngine engine = engine(parent)) {
      RunRef root = start(engine, parent, JSON.objectNode());
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, root);

      assertThat(done.status()).isEqualTo(RunStatus.FAILED);
      JsonNode tail = JSON.objectNode();
      for (var r : journal.entries(root)) {
        if (r.entry() instanceof JournalEntry.StepCompleted c && c.trajectoryTail().isPresent()) {
          tail = c.trajectoryTail().get();
        }
      }
      assertThat(tail.path("diagnostic").asText()).isEqualTo("flow_not_found");
      assertThat(tail.path("message").asText()).contains("'nowhere'");
      assertThat(tail.path("fix").asText()).contains("nowhere.flow.java");
      assertThat(journal.children(root)).isEmpty();
    }
  }
}
