package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.ManualClock;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.llm.ModelFixture;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.ToolCall;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.runtime.DurableFlowTest.TestFlow;
import dev.flows.worker.llm.ModelRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A run's model answers exported as a fixture ({@link ModelFixture}, {@code flows runs
 * export-fixture}) and replayed by {@link ScriptedModel#fromFixture}: the agent answers the same.
 */
class AgentFixtureTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final InMemoryJournal journal =
      new InMemoryJournal(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")));

  private record Done(RunSnapshot run, List<JsonNode> requests, List<String> tools) {}

  private Done runAgainst(ScriptedModel script) throws Exception {
    try (ScriptedModelServer server = ScriptedModelServer.start(script)) {
      ModelRegistry registry = new ModelRegistry(name -> Optional.of("sk-test"));
      AgentTest.declare(registry, server);
      FlowResolver resolver = new FlowResolver();
      RunRef root =
          DurableFlowTest.start(
              journal,
              resolver,
              new TestFlow(
                  AgentTest.HEADER,
                  (f, in) ->
                      JSON.textNode(f.agent("smart").tools("tickets", "pay").run("printer"))),
              JSON.objectNode(),
              SdkConfig.DEFAULTS);
      MiniWorker w = AgentTest.worker(journal, resolver, registry);
      RunSnapshot done = DurableFlowTest.drive(journal, w, root, () -> false);
      return new Done(done, server.requests(), List.copyOf(w.calls));
    }
  }

  @Test
  void aRunsExportedModelAnswersReplayedFromTheFixtureAnswerTheSame() throws Exception {
    Done first =
        runAgainst(
            ScriptedModel.of(
                Turn.toolCalls(
                    new ToolCall("c1", "tickets__classify", JSON.objectNode().put("text", "p")),
                    new ToolCall("c2", "pay__charge", JSON.objectNode().put("amount", 5))),
                Turn.text("hardware, charged", 40, 7)));
    ObjectNode fixture = ModelFixture.of(journal, first.run().runId());

    Done replayed = runAgainst(ScriptedModel.fromFixture(fixture));

    assertThat(first.run().status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(fixture.path("turns")).hasSize(2);
    assertThat(fixture.path("turns").get(1).path("inputTokens").asLong()).isEqualTo(40);
    assertThat(replayed.run().status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(replayed.run().steps().getFirst().output().orElseThrow().asText())
        .isEqualTo("hardware, charged");
    assertThat(replayed.tools()).containsExactlyInAnyOrderElementsOf(first.tools());
    assertThat(replayed.requests()).hasSize(first.requests().size());
    ObjectNode again = ModelFixture.of(journal, replayed.run().runId());
    assertThat(again.path("turns")).isEqualTo(fixture.path("turns"));
  }
}
