package dev.flows.worker.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.LiveText;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.llm.LlmAnswer;
import dev.flows.kernel.llm.LlmRequest;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A declared model called with streaming: its text arrives in pieces, the answer whole. */
class StreamingModelTest {
  private static final String LONG =
      "The refund was approved because the customer was charged twice for the same order";

  private static LangChainModel model(ScriptedModelServer server) {
    return LangChainModel.of(
        new ModelConfig(
            "small",
            ModelProvider.OPENAI_COMPATIBLE,
            "gpt-scripted",
            Optional.of(URI.create(server.baseUrl())),
            Optional.empty(),
            Duration.ofSeconds(10)),
        name -> Optional.empty());
  }

  @Test
  void aDeclaredModelStreamsALongAnswerWordByWordAndAnswersItWholeWithTheLastChunksUsage()
      throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(ScriptedModel.of(Turn.text(LONG, 30, 15)))
            .deltaDelay(Duration.ofMillis(20))) {
      List<String> deltas = new CopyOnWriteArrayList<>();
      List<Long> seenAt = new CopyOnWriteArrayList<>();
      long start = System.nanoTime();

      LlmAnswer a =
          model(server)
              .chat(
                  LlmRequest.prompt("why?"),
                  d -> {
                    deltas.add(d);
                    seenAt.add(System.nanoTime() - start);
                  });
      long end = System.nanoTime() - start;

      assertThat(deltas).hasSize(LONG.split(" ").length);
      assertThat(String.join("", deltas)).isEqualTo(LONG);
      assertThat(a.text()).isEqualTo(LONG);
      assertThat(a.usage().inputTokens()).isEqualTo(30);
      assertThat(a.usage().outputTokens()).isEqualTo(15);
      assertThat(a.finishReason()).isEqualTo("stop");
      // The first word was seen long before the answer was whole.
      assertThat(end - seenAt.getFirst()).isGreaterThan(Duration.ofMillis(200).toNanos());
      assertThat(server.requests().getFirst().path("stream").asBoolean()).isTrue();
    }
  }

  @Test
  void aModelCalledWithoutAStreamIsAskedWithoutStreaming() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(ScriptedModel.of(Turn.text(LONG)))) {
      LlmAnswer a = LlmCalls.standard().call(model(server), LlmRequest.prompt("why?"));

      assertThat(a.text()).isEqualTo(LONG);
      assertThat(server.requests().getFirst().path("stream").asBoolean(false)).isFalse();
    }
  }

  @Test
  void aTurnsLiveTextIsWrittenAtMostOncePerCoalescingPeriodAndClearedWhenItEnds() {
    List<String> writes = new ArrayList<>();
    LiveText recording =
        new LiveText() {
          @Override
          public void publish(RunRef runId, String stepId, String text) {
            writes.add(stepId + ":" + text);
          }

          @Override
          public void clear(RunRef runId, String stepId) {
            writes.add(stepId + ":cleared");
          }

          @Override
          public List<Partial> of(RunRef runId) {
            return List.of();
          }
        };
    AtomicLong now = new AtomicLong();
    try (LiveTurn turn = new LiveTurn(recording, new RunRef("r1"), "body", now::get)) {
      for (int i = 0; i < 50; i++) {
        turn.delta("w" + i + " ");
        now.addAndGet(Duration.ofMillis(10).toNanos());
      }
      assertThat(turn.text()).startsWith("w0 w1 ").endsWith("w49 ");
    }

    // 50 pieces over 500 ms: the first at once, then one write per 100 ms, then the clear.
    assertThat(writes).hasSize(6);
    assertThat(writes.getFirst()).isEqualTo("body:w0 ");
    assertThat(writes.get(4)).startsWith("body:w0 w1 ").endsWith("w40 ");
    assertThat(writes.getLast()).isEqualTo("body:cleared");
  }
}
