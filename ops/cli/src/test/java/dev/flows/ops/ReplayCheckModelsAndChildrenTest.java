package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.ModelClient;
import dev.flows.sdk.runtime.ClientModelPort;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.Inventory;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code flows replay-check} of a journal holding a model call and a child flow: answered from the
 * journal, with no model asked and no row written.
 */
class ReplayCheckModelsAndChildrenTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final AtomicInteger ASKED = new AtomicInteger();

  /** A model call, a child flow, then the wait for approval. */
  public static final class Asks implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("asks").version("1").models("fast").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      String kind = f.llm("fast").user("classify " + input.path("n").asInt()).call().text();
      JsonNode found = f.flow(Lookup.class).call(JSON.objectNode().put("kind", kind));
      f.awaitSignal("approve", Duration.ofHours(24));
      return found;
    }
  }

  /** Version 2 asks the model a second time before the child. */
  public static final class AsksTwice implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("asks").version("2").models("fast").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      String kind = f.llm("fast").user("classify " + input.path("n").asInt()).call().text();
      f.llm("fast").user("are you sure about " + kind + "?").call();
      JsonNode found = f.flow(Lookup.class).call(JSON.objectNode().put("kind", kind));
      f.awaitSignal("approve", Duration.ofHours(24));
      return found;
    }
  }

  /** The child: one step. */
  public static final class Lookup implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("lookup").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      return f.step("find", () -> "found " + input.path("kind").asText());
    }
  }

  private static Map<String, Long> rows(String url) throws Exception {
    Map<String, Long> counts = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet r =
          s.executeQuery(
              "select table_name from information_schema.tables"
                  + " where table_schema = 'flows' and table_type = 'BASE TABLE'")) {
        while (r.next()) {
          tables.add(r.getString(1));
        }
      }
      for (String t : tables) {
        try (ResultSet r = s.executeQuery("select count(*) from flows." + t)) {
          r.next();
          counts.put(t, r.getLong(1));
        }
      }
    }
    return counts;
  }

  /** Runs {@code n} runs of {@link Asks} on an in-process worker until each waits on its signal. */
  private static List<RunRef> waitingRuns(PostgresJournal journal, int n) throws Exception {
    List<RunRef> runs = new ArrayList<>();
    try (FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(50)).build(),
            SdkConfig.DEFAULTS.toBuilder().suspendAfter(Duration.ofMillis(200)).build(),
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment())) {
      ModelClient model =
          (messages, schema) -> ModelClient.Answer.of("billing-" + ASKED.incrementAndGet(), 7, 3);
      engine.models().register("fast", new ClientModelPort("fast", model));
      Asks flow = new Asks();
      engine.register(flow).startWorker();
      LoadedFlow loaded =
          new LoadedFlow(
              flow,
              new FlowBodyInstruction.Origin.ClassFlow(Asks.class.getName()),
              Set.of(),
              Path.of("").toAbsolutePath());
      for (int i = 0; i < n; i++) {
        runs.add(
            engine
                .admit(loaded, JSON.objectNode().put("n", i), Optional.empty(), Inventory.empty())
                .runId());
      }
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      for (RunRef run : runs) {
        RunSnapshot now = journal.run(run).orElseThrow();
        while (!now.steps().getFirst().lastReason().equals(Optional.of(CompletionReason.SUSPENDED))
            || journal.children(run).isEmpty()) {
          assertThat(now.status()).isEqualTo(RunStatus.RUNNING);
          assertThat(System.nanoTime()).as("run %s waits on its signal", run).isLessThan(until);
          Thread.sleep(50);
          now = journal.run(run).orElseThrow();
        }
      }
    }
    return runs;
  }

  @Test
  void aJournalWithModelCallsAndChildFlowsIsCheckedWithNoModelAskedAndNoRowWritten()
      throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("replay_check_llm_children");
    Path home = Files.createTempDirectory("flows-home");
    Cli cli =
        new Cli(
            Map.of(
                Session.HOME_VARIABLE, home.toString(), DatabaseTarget.URL_VARIABLE, db.jdbcUrl()),
            OpsConfig.defaults());
    try (PostgresJournal journal =
        PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(2))) {
      List<RunRef> runs = waitingRuns(journal, 3);
      for (RunRef run : runs) {
        assertThat(journal.run(journal.children(run).getFirst()).orElseThrow().status())
            .isEqualTo(RunStatus.SUCCEEDED);
      }
    }
    int asked = ASKED.get();
    assertThat(asked).as("each run asked the model once").isEqualTo(3);
    Map<String, Long> before = rows(db.jdbcUrl());

    Cli.Result same = cli.run("--json", "replay-check", Asks.class.getName());
    Cli.Result changed = cli.run("--json", "replay-check", AsksTwice.class.getName());

    assertThat(same.exit()).as(same.out() + same.err()).isEqualTo(Exit.SUCCESS);
    assertThat(same.json().path("runs")).hasSize(3);
    assertThat(same.json().path("summary").asText())
        .isEqualTo("3 runs of flow asks: 3 compatible, 0 diverge");
    assertThat(changed.exit()).as(changed.out() + changed.err()).isEqualTo(Exit.REFUSED);
    for (JsonNode r : changed.json().path("runs")) {
      assertThat(r.path("compatible").asBoolean()).isFalse();
      assertThat(r.path("position").asInt()).isEqualTo(2);
      assertThat(r.path("verdict").asText()).contains("code makes f.llm(\"fast\")");
    }
    assertThat(ASKED).as("no model was asked").hasValue(asked);
    assertThat(rows(db.jdbcUrl())).as("nothing was written").isEqualTo(before);
    PgBinaries.deleteTree(home);
  }
}
