package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.spec.RunSpecParser;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModel.Turn;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code flows runs watch} in another process than the worker prints a running model turn's text as
 * the model streams it, before the turn's receipt is journaled.
 */
class RunsWatchPartialTextTest {
  static final String ANSWER =
      "The customer was charged twice for order 1042 so one charge is refunded in full today";

  private static PostgresJournal journal;
  private static Cli cli;
  private static Path home;

  @BeforeAll
  static void database() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("runs_watch_partial");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(4));
    home = Files.createTempDirectory("flows-home");
    cli =
        new Cli(
            Map.of(
                Session.HOME_VARIABLE, home.toString(), DatabaseTarget.URL_VARIABLE, db.jdbcUrl()),
            OpsConfig.defaults());
  }

  @AfterAll
  static void close() {
    journal.close();
    PgBinaries.deleteTree(home);
  }

  /** A worker whose model "small" streams {@code ANSWER} slowly from a scripted server. */
  static FlowsEngine engine(PostgresJournal journal, ScriptedModelServer server) {
    FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(50)).build(),
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
    engine.startWorker();
    return engine;
  }

  static RunRef admit(PostgresJournal journal) {
    return journal
        .admit(
            StartRun.of(
                "watch-partial-" + UUID.randomUUID(),
                RunSpecParser.parse(
                    """
                    {"version": "0.1.0", "name": "reply", "steps": [
                      {"id": "reply", "llm": {"prompt": "Answer the ticket", "model": "small"}}]}
                    """)),
            Admit.queued())
        .runId();
  }

  static ScriptedModelServer slowServer() throws Exception {
    return ScriptedModelServer.start(ScriptedModel.of(Turn.text(ANSWER)))
        .deltaDelay(Duration.ofMillis(150));
  }

  @Test
  void watchJsonPrintsTheTurnsGrowingTextAsLlmPartialLinesBeforeItsReceipt() throws Exception {
    try (ScriptedModelServer server = slowServer();
        FlowsEngine engine = engine(journal, server)) {
      RunRef run = admit(journal);

      Cli.Result watch = cli.run("runs", "watch", run.value(), "--json");

      assertThat(watch.exit()).as(watch.err()).isZero();
      List<JsonNode> lines = watch.jsonLines();
      List<JsonNode> partials =
          lines.stream().filter(l -> l.path("type").asText().equals("llm.partial")).toList();
      assertThat(partials).isNotEmpty();
      JsonNode first = partials.getFirst();
      assertThat(first.path("runId").asText()).isEqualTo(run.value());
      assertThat(first.path("stepId").asText()).isEqualTo("reply");
      assertThat(ANSWER).startsWith(first.path("text").asText());
      assertThat(first.path("text").asText()).isNotEqualTo(ANSWER);
      int firstPartial = lines.indexOf(first);
      int confirmed =
          lines.indexOf(
              lines.stream()
                  .filter(l -> l.path("type").asText().equals("effect.confirmed"))
                  .findFirst()
                  .orElseThrow());
      assertThat(firstPartial).as("partial text printed before the receipt").isLessThan(confirmed);
    }
  }

  @Test
  void watchPrintsTheGrowingTextOnItsOwnLinesBehindTheStepsLabel() throws Exception {
    try (ScriptedModelServer server = slowServer();
        FlowsEngine engine = engine(journal, server)) {
      RunRef run = admit(journal);

      Cli.Result watch = cli.run("runs", "watch", run.value());

      assertThat(watch.exit()).as(watch.err()).isZero();
      List<String> grown =
          watch
              .out()
              .lines()
              .filter(l -> l.startsWith("reply") && l.contains(" > "))
              .map(l -> l.substring(l.indexOf(" > ") + 3))
              .toList();
      assertThat(grown).hasSizeGreaterThan(1);
      assertThat(ANSWER).startsWith(String.join(" ", grown).replaceAll("\\s+", " ").strip());
    }
  }
}
