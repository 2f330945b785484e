package dev.flows.embed;

import static dev.flows.embed.TestFlows.JSON;
import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModelServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RunHandle#progress}: a model turn's text while the model streams it, then the end. */
class RunProgressTest {
  static final String ANSWER =
      "Hello Ann and welcome aboard we are glad to have you with us on the team this year";

  @Test
  void progressStreamsARunningTurnsTextBeforeItsReceiptThenTheRunSettling(@TempDir Path dir)
      throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("embed_progress");
    try (ScriptedModelServer server =
        ScriptedModelServer.start(ScriptedModel.of(ScriptedModel.Turn.text(ANSWER)))
            .deltaDelay(Duration.ofMillis(100))) {
      Files.writeString(
          dir.resolve("flows.json"),
          "{\"models\": {\"fast\": {\"provider\": \"openai-compatible\", \"model\": \"scripted\","
              + " \"baseUrl\": \""
              + server.baseUrl()
              + "\"}}}");
      try (Flows flows =
          withWorker(on(db))
              .register(new ModelsTest.Greeter())
              .flowsJson(dir)
              .migrate(true)
              .build()) {
        RunHandle<JsonNode> run =
            flows.start(ModelsTest.Greeter.class, JSON.objectNode().put("name", "Ann"));
        RunRef id = new RunRef(run.runId().value());
        List<ProgressEvent> events = new ArrayList<>();
        List<Boolean> receiptJournaled = new ArrayList<>();

        run.progress()
            .forEach(
                e -> {
                  if (e instanceof ProgressEvent.PartialText && receiptJournaled.isEmpty()) {
                    receiptJournaled.add(
                        flows.journal().entries(id).stream()
                            .map(JournalRecord::entry)
                            .anyMatch(x -> x.type().equals("effect.confirmed")));
                  }
                  events.add(e);
                });

        assertThat(receiptJournaled).containsExactly(false);
        List<ProgressEvent.PartialText> partials =
            events.stream()
                .filter(ProgressEvent.PartialText.class::isInstance)
                .map(ProgressEvent.PartialText.class::cast)
                .toList();
        assertThat(partials.size()).isGreaterThan(1);
        assertThat(partials).allMatch(p -> ANSWER.startsWith(p.text()));
        assertThat(partials.getFirst().text()).isNotEqualTo(ANSWER);
        assertThat(events.getLast())
            .isEqualTo(new ProgressEvent.Settled(run.runId(), RunState.SUCCEEDED));
        assertThat(run.result(Duration.ofSeconds(30)).path("text").asText()).isEqualTo(ANSWER);
        assertThat(run.progress().poll())
            .containsExactly(new ProgressEvent.Settled(run.runId(), RunState.SUCCEEDED));
      }
    }
  }
}
