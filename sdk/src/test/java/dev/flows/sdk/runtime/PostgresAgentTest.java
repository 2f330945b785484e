package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.ToolCall;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.worker.llm.ModelRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code f.agent} on Postgres: parallel tool calls, then a replay from the journal. */
class PostgresAgentTest {
  private static String url;
  private static PostgresJournal journal;

  @BeforeAll
  static void db() {
    url = TestDatabase.fresh("agent").jdbcUrl();
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(url));
  }

  @AfterAll
  static void close() {
    journal.close();
  }

  @Test
  void anAgentsTurnsAndToolCallsAreAnsweredFromThePostgresJournalAfterItsWorkerDies()
      throws Exception {
    JsonNodeFactory json = JsonNodeFactory.instance;
    try (ScriptedModelServer server =
        ScriptedModelServer.start(
            ScriptedModel.of(
                Turn.toolCalls(
                    new ToolCall("c1", "tickets__classify", json.objectNode().put("text", "a")),
                    new ToolCall("c2", "pay__charge", json.objectNode().put("amount", 5))),
                Turn.text("hardware, charged")))) {
      ModelRegistry registry = new ModelRegistry(name -> Optional.of("sk-test"));
      AgentTest.declare(registry, server);
      FlowResolver resolver = new FlowResolver();
      AtomicInteger bodies = new AtomicInteger();
      CountDownLatch answered = new CountDownLatch(1);
      DurableFlowTest.TestFlow flow =
          new DurableFlowTest.TestFlow(
              AgentTest.HEADER,
              (f, in) -> {
                String answer = f.agent("smart").tools("tickets", "pay").run("printer on fire");
                if (bodies.incrementAndGet() == 1) {
                  answered.countDown();
                  new CountDownLatch(1).await();
                }
                return json.textNode(answer);
              });
      resolver.register(flow);
      RunRef root =
          journal
              .admit(
                  StartRun.of(
                      "agent-" + System.nanoTime(),
                      Lowering.root(
                          flow.header(),
                          new FlowBodyInstruction.Origin.ClassFlow("agent"),
                          json.objectNode(),
                          DurableFlowTest.inventory(),
                          SdkConfig.DEFAULTS)),
                  Admit.queued())
              .runId();
      MiniWorker w = AgentTest.worker(journal, resolver, registry);
      long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (answered.getCount() > 0 && System.nanoTime() < until) {
        if (w.tick() == 0) {
          journal.awaitWork(Duration.ofMillis(50));
        }
      }
      w.killBodies();
      // The dead body's lease runs out now, not after a wait a busy machine could outlast.
      ExpiredLeases.of(url, root);
      RunSnapshot done = null;
      while (System.nanoTime() < until) {
        journal.expireLeases();
        RunSnapshot s = journal.run(root).orElseThrow();
        if (s.status().terminal()) {
          done = s;
          break;
        }
        if (w.tick() == 0) {
          journal.awaitWork(Duration.ofMillis(100));
        }
      }

      assertThat(done).isNotNull();
      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(bodies).hasValue(2);
      assertThat(done.steps().getFirst().output().orElseThrow().asText())
          .isEqualTo("hardware, charged");
      assertThat(server.requests()).hasSize(2);
      assertThat(journal.children(root)).hasSize(2);
      assertThat(w.performedByKey.values()).hasSize(2).allMatch(n -> n.get() == 1);
    }
  }
}
