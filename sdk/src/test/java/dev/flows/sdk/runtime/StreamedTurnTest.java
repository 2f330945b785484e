package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.LiveText;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.spec.RunSpecParser;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.worker.WorkerConfig;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A model turn streamed from a slow model: its text is live (the journal's {@link LiveText}) while
 * it runs, and only its final message is journaled; a turn cut off mid-stream leaves nothing of its
 * text behind and is asked again.
 */
class StreamedTurnTest {
  static final String DRAFT =
      "Drafting a reply about the duplicate charge on order 1042 that the customer reported today";
  static final String FINAL =
      "The customer was charged twice for order 1042 so one charge is refunded in full";

  /** The journal the engines run on; Postgres in the subclass. */
  protected Journal journal() {
    return new InMemoryJournal(Clock.systemUTC());
  }

  static FlowsEngine engine(Journal journal, ScriptedModelServer server) {
    FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder()
                .pollInterval(Duration.ofMillis(50))
                .stopGrace(Duration.ofMillis(50))
                .killGrace(Duration.ofMillis(50))
                .build(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment());
    engine
        .models()
        .declare(
            new ModelConfig(
                "small",
                ModelProvider.OPENAI_COMPATIBLE,
                "gpt-scripted",
                Optional.of(URI.create(server.baseUrl())),
                Optional.empty(),
                Duration.ofSeconds(30)));
    return engine;
  }

  static RunRef admit(Journal journal) {
    return journal
        .admit(
            StartRun.of(
                "streamed-" + System.nanoTime(),
                RunSpecParser.parse(
                    """
                    {"version": "0.1.0", "name": "reply", "steps": [
                      {"id": "reply", "llm": {"prompt": "Answer the ticket", "model": "small"},
                       "maxIterations": 3, "retry": {"initialBackoffMs": 10, "maxBackoffMs": 10}}]}
                    """)),
            Admit.queued())
        .runId();
  }

  /** Waits until the run's turn has published some text; answers it. */
  static LiveText.Partial awaitPartial(Journal journal, RunRef run) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < until) {
      List<LiveText.Partial> live = journal.liveText().of(run);
      if (!live.isEmpty()) {
        return live.getFirst();
      }
      Thread.sleep(10);
    }
    throw new AssertionError("no partial text of " + run);
  }

  static boolean confirmed(Journal journal, RunRef run) {
    return journal.entries(run).stream().anyMatch(r -> r.entry().type().equals("effect.confirmed"));
  }

  static List<String> entriesHolding(Journal journal, RunRef run, String text) {
    return journal.entries(run).stream()
        .map(JournalRecord::entry)
        .map(Object::toString)
        .filter(json -> json.contains(text))
        .toList();
  }

  @Test
  void aStreamedTurnsTextIsLiveBeforeItsReceiptExistsAndOnlyTheFinalMessageIsJournaled()
      throws Exception {
    Journal journal = journal();
    try (ScriptedModelServer server =
            ScriptedModelServer.start(ScriptedModel.of(Turn.text(FINAL)))
                .deltaDelay(Duration.ofMillis(40));
        FlowsEngine engine = engine(journal, server)) {
      engine.startWorker();
      RunRef run = admit(journal);

      LiveText.Partial partial = awaitPartial(journal, run);
      boolean receiptThen = confirmed(journal, run);
      RunSnapshot done = EngineEndToEndTest.awaitTerminal(journal, run);

      assertThat(receiptThen).as("the receipt was journaled before the text was seen").isFalse();
      assertThat(partial.stepId()).isEqualTo("reply");
      assertThat(FINAL).startsWith(partial.text());
      assertThat(partial.text()).isNotEqualTo(FINAL);
      assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
      JsonNode receipt = done.steps().getFirst().output().orElseThrow();
      assertThat(receipt.path("output").asText()).isEqualTo(FINAL);
      assertThat(journal.liveText().of(run)).isEmpty();
      // Every entry holding the answer's first words holds it whole: no partial text journaled.
      assertThat(entriesHolding(journal, run, "The customer"))
          .isNotEmpty()
          .allMatch(json -> json.contains(FINAL));
    }
  }

  @Test
  void aTurnCutOffMidStreamLeavesNoPartialTextInTheJournalAndIsAskedAgain() throws Exception {
    Journal journal = journal();
    try (ScriptedModelServer server =
        ScriptedModelServer.start(ScriptedModel.of(Turn.text(DRAFT), Turn.text(FINAL)))
            // Slow enough that the draft is still streaming when its worker is closed.
            .deltaDelay(Duration.ofMillis(500))) {
      RunRef run;
      try (FlowsEngine dying = engine(journal, server)) {
        dying.startWorker();
        run = admit(journal);
        assertThat(awaitPartial(journal, run).text()).startsWith("Drafting");
      }
      server.deltaDelay(Duration.ZERO);
      RunSnapshot done;
      try (FlowsEngine next = engine(journal, server)) {
        next.startWorker();
        done = EngineEndToEndTest.awaitTerminal(journal, run);
      }

      assertThat(done.status()).as(journal.entries(run).toString()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(done.steps().getFirst().output().orElseThrow().path("output").asText())
          .isEqualTo(FINAL);
      assertThat(server.requests()).as("the cut-off turn was asked again").hasSize(2);
      assertThat(entriesHolding(journal, run, "Drafting")).isEmpty();
      assertThat(journal.liveText().of(run)).isEmpty();
    }
  }
}
