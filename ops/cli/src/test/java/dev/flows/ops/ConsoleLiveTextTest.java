package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.runtime.FlowsEngine;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's run page while a model turn streams: the page has a live section its script polls,
 * the run's live endpoint answers the turn's text before its receipt exists, and the page shows
 * what the run spent on models and its budget as {@code runs show} words them.
 */
class ConsoleLiveTextTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static PostgresJournal journal;
  private static Console console;

  @BeforeAll
  static void start() {
    TestDatabase.Fresh db = TestDatabase.fresh("console_live");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(4));
    console =
        Console.start(journal, db.dataSource(), Console.Settings.localhost(0, Optional.empty()));
  }

  @AfterAll
  static void stop() {
    console.close();
    journal.close();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(console.uri().resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theLiveEndpointAnswersARunningTurnsTextBeforeItsReceiptAndThePageShowsItsUsage()
      throws Exception {
    try (ScriptedModelServer server = RunsWatchPartialTextTest.slowServer();
        FlowsEngine engine = RunsWatchPartialTextTest.engine(journal, server)) {
      RunRef run = RunsWatchPartialTextTest.admit(journal);
      String page = get("/runs/" + run.value()).body();
      JsonNode live = null;
      boolean receiptThen = true;
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (System.nanoTime() < until) {
        JsonNode answer = JSON.readTree(get("/api/runs/" + run.value() + "/live").body());
        if (!answer.path("turns").isEmpty()) {
          receiptThen =
              journal.entries(run).stream()
                  .map(JournalRecord::entry)
                  .anyMatch(e -> e.type().equals("effect.confirmed"));
          live = answer;
          break;
        }
        Thread.sleep(20);
      }
      RunSnapshot done = awaitEnd(run);

      assertThat(page).contains("id=\"live\"").contains("/api/runs/" + run.value() + "/live");
      assertThat(live).as("the live endpoint answered a turn").isNotNull();
      assertThat(receiptThen).as("the receipt existed when the text was seen").isFalse();
      assertThat(live.path("running").asBoolean()).isTrue();
      JsonNode turn = live.path("turns").get(0);
      assertThat(turn.path("stepId").asText()).isEqualTo("reply");
      assertThat(RunsWatchPartialTextTest.ANSWER).startsWith(turn.path("text").asText());
      assertThat(turn.path("text").asText()).isNotEqualTo(RunsWatchPartialTextTest.ANSWER);
      assertThat(done.status().wire()).isEqualTo("succeeded");
      JsonNode after = JSON.readTree(get("/api/runs/" + run.value() + "/live").body());
      assertThat(after.path("running").asBoolean()).isFalse();
      assertThat(after.path("turns")).isEmpty();
      String ended = get("/runs/" + run.value()).body();
      assertThat(ended).doesNotContain("id=\"live\"");
      assertThat(ended).contains("id=\"spend\"").contains("usage: 1 model calls, 10 tokens in");
    }
  }

  @Test
  void theSpendSectionShowsUsageBudgetAndTreeUsageAsRunsShowWordsThem() throws Exception {
    JsonNode run =
        JSON.readTree(
            """
            {"runId": "r1", "status": "succeeded",
             "usage": {"inputTokens": 70, "outputTokens": 12, "modelCalls": 2, "costUsd": 0.0012},
             "budget": {"tokens": 500, "costUsd": 1},
             "treeUsage": {"inputTokens": 90, "outputTokens": 20, "modelCalls": 3}}
            """);

    String html = ConsoleLive.sections(run);

    assertThat(html)
        .contains("<li id=\"usage\">usage: 2 model calls, 70 tokens in, 12 out, $0.0012</li>")
        .contains("<li id=\"budget\">" + RunUsage.budgetText(run).orElseThrow() + "</li>")
        .contains("<li id=\"tree-usage\">tree usage: 3 model calls, 90 tokens in, 20 out</li>")
        .doesNotContain("id=\"live\"");
  }

  private static RunSnapshot awaitEnd(RunRef run) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(run).orElseThrow();
      if (s.status().terminal()) {
        return s;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("run did not end: " + run);
  }
}
