package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.ClaimedAttempt;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.kernel.spec.RunSpec;
import dev.flows.kernel.spec.StepKind;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus endpoint {@code flows worker --metrics-port} serves (the same {@link OpsTelemetry}
 * the command starts), scraped after a known workload: a flow run whose first attempt loses its
 * lease and whose retry makes one MCP call, and, in queue {@code side}, one ready step, one backing
 * off and one parked on an unconfirmed effect.
 */
class MetricsEndpointTest {
  /** Long enough for an attempt at any machine load: only the first attempt loses its lease. */
  private static final Duration LEASE = WorkerConfig.DEFAULT_LEASE;

  private static final WorkerId METERED = new WorkerId("metered-worker");
  private static final WorkerId HAND = new WorkerId("by-hand");

  private static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Metered implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("metered").version("1").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String a = f.mcp("tools").tool("echo").call(Map.of("text", "hi")).text();
          return JsonNodeFactory.instance.objectNode().put("a", a);
        }
      }
      """;

  private TestDatabase.Fresh db;
  private PostgresJournal journal;
  private OpsTelemetry telemetry;
  private FlowsEngine engine;
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.fresh("metrics");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(8));
    telemetry = OpsTelemetry.start(Map.of(), Optional.of(0), db.dataSource());
    dir = Files.createTempDirectory("metrics");
  }

  @AfterEach
  void tearDown() {
    if (engine != null) {
      engine.close();
    }
    telemetry.close();
    journal.close();
    PgBinaries.deleteTree(dir);
  }

  /**
   * The journal of a worker whose first renewal comes after its lease ran out: the lease is put
   * past its deadline by the database clock just before that renewal is sent, so the worker loses
   * it however fast or slow the machine is.
   */
  private Journal firstRenewalLate(Journal j) {
    AtomicBoolean late = new AtomicBoolean(true);
    return (Journal)
        Proxy.newProxyInstance(
            Journal.class.getClassLoader(),
            new Class<?>[] {Journal.class},
            (proxy, m, args) -> {
              if ((m.getName().equals("renewLeases") || m.getName().equals("heartbeat"))
                  && late.getAndSet(false)) {
                expireLeasesOf(METERED);
              }
              try {
                return m.invoke(j, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private void expireLeasesOf(WorkerId worker) throws Exception {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        PreparedStatement st =
            c.prepareStatement(
                "UPDATE flows.steps SET lease_deadline = clock_timestamp() - interval '1 millisecond'"
                    + " WHERE status = 'running' AND worker_id = ?")) {
      st.setString(1, worker.value());
      assertThat(st.executeUpdate()).as("leases of %s", worker.value()).isPositive();
    }
  }

  private RunRef side(String name, RunSpec spec) {
    return journal
        .admit(
            new StartRun(Optional.empty(), name, spec, Optional.empty(), "test", "side"),
            Admit.queued())
        .runId();
  }

  private ClaimedAttempt claimSide() {
    return journal
        .claim(
            new ClaimRequest(
                HAND,
                Set.of(StepKind.values()),
                1,
                Duration.ofMinutes(5),
                Optional.empty(),
                Set.of(),
                Optional.of(Set.of("side"))))
        .getFirst();
  }

  private void sideQueue() {
    side(
        "retrying",
        Specs.named(
            "retrying",
            Specs.iterations(
                Specs.retry(
                    Specs.command("a", "true"), new BackoffPolicy(3_600_000, 3_600_000, 1.0, 0)),
                3)));
    journal.complete(
        claimSide().lease(),
        new StepOutcome.Failed(
            CompletionReason.WORKER_ERROR, JsonNodeFactory.instance.objectNode(), true));
    side("parked", Specs.named("parked", Specs.agent("a", "srv/tool")));
    ClaimedAttempt p = claimSide();
    journal.recordEffect(p.lease(), "srv/tool");
    journal.complete(
        p.lease(),
        new StepOutcome.Parked(
            CompletionReason.WORKER_ERROR,
            ErrorCode.EFFECT_OUTCOME_UNKNOWN,
            JsonNodeFactory.instance.objectNode()));
    side("ready", Specs.named("ready", Specs.command("a", "true")));
  }

  private LoadedFlow flow() throws Exception {
    JsonNode s = McpServerConfigJson.write(Jvm.stdioServer("tools", List.of(), Map.of()));
    Files.writeString(dir.resolve("metered.flow.java"), FLOW);
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\"tools\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + "}}}");
    return LoadedFlow.load(dir.resolve("metered.flow.java").toString(), dir);
  }

  private String scrape() throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:"
                                + telemetry.metricsPort().orElseThrow()
                                + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/plain");
    return r.body();
  }

  @Test
  void aScrapeAfterAKnownWorkloadShowsEveryFlowsMetricWithItsLabels() throws Exception {
    sideQueue();
    engine =
        new FlowsEngine(
            firstRenewalLate(journal),
            WorkerConfig.defaults().toBuilder()
                .defaultLease(LEASE)
                .pollInterval(Duration.ofMillis(100))
                .reconcileInterval(Duration.ofMillis(200))
                .stopGrace(Duration.ofSeconds(1))
                .build(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment(),
            InstantSource.system(),
            METERED);
    engine.acceptJournalSources();
    RunRef run =
        engine.start(flow(), JsonNodeFactory.instance.objectNode(), Optional.empty()).runId();
    engine.startWorker();
    long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (!journal.run(run).orElseThrow().status().terminal() && System.nanoTime() < until) {
      journal.awaitWork(Duration.ofMillis(200));
    }
    assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);

    String text = scrape();
    assertThat(text)
        .contains("flows_runs_started_total{flow=\"metered\"} 1\n")
        .contains("flows_runs_ended_total{flow=\"metered\",status=\"succeeded\"} 1\n")
        .contains("flows_attempts_total{reason=\"success\"} ")
        .contains("flows_attempts_total{reason=\"lease_expired\"} 1\n")
        .containsPattern("flows_leases_lost_total\\{reason=\"(already|renewal)_expired\"} 1\n")
        .contains("# TYPE flows_claim_duration_seconds histogram\n")
        .containsPattern("flows_claim_duration_seconds_count [1-9][0-9]*\n")
        .contains("flows_queue_depth{queue=\"side\",state=\"ready\"} 1\n")
        .contains("flows_queue_depth{queue=\"side\",state=\"backing_off\"} 1\n")
        .contains("flows_queue_depth{queue=\"side\",state=\"parked\"} 1\n")
        .contains("flows_effects_parked{queue=\"side\"} 1\n")
        .contains("# TYPE mcp_client_operation_duration_seconds histogram\n")
        .contains(
            "mcp_client_operation_duration_seconds_count{gen_ai_tool_name=\"echo\","
                + "mcp_method_name=\"tools/call\",mcp_server_name=\"tools\"} 1\n");
  }

  @Test
  void aMetricsPortOutOfRangeIsRefusedInOneLine() {
    Cli.Result r =
        new Cli(Map.of(DatabaseTarget.URL_VARIABLE, db.jdbcUrl()))
            .run("worker", "--metrics-port", "70000");
    assertThat(r.exit()).isNotZero();
    assertThat(r.errLines())
        .singleElement()
        .asString()
        .startsWith(
            "error config_invalid: --metrics-port must be a whole number from 0 to 65535, not 70000"
                + " (at --metrics-port)");
  }
}
