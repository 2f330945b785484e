package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.sdk.runtime.FlowsEngine;
import dev.flows.sdk.runtime.LoadedFlow;
import dev.flows.sdk.runtime.SdkConfig;
import dev.flows.worker.WorkerConfig;
import dev.flows.worker.telemetry.FlowsTelemetry;
import dev.flows.worker.telemetry.RunTraces;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One trace per run across workers. The crash is simulated in one JVM (the in-memory exporter
 * cannot see into a SIGKILLed process): worker A's journal stops answering for good, with no
 * completion and no renewal, the moment its body makes its second MCP call, exactly what a killed
 * process leaves; its lease expires and worker B takes the body over.
 */
class TracesAcrossWorkersTest {
  private static final Duration LEASE = Duration.ofMillis(1_500);
  private static final Pattern TRACEPARENT =
      Pattern.compile("traceparent=00-([0-9a-f]{32})-([0-9a-f]{16})-01");

  private static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Traced implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("traced").version("1").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String a = f.mcp("tools").tool("meta").call(Map.of()).text();
          String b = f.mcp("tools").tool("meta").call(Map.of()).text();
          return JsonNodeFactory.instance.objectNode().put("a", a).put("b", b);
        }
      }
      """;

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final CountDownLatch buried = new CountDownLatch(1);
  private OpenTelemetrySdk otel;
  private PostgresJournal journal;
  private FlowsEngine a;
  private FlowsEngine b;
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .setIdGenerator(new FlowsIdGenerator())
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build();
    FlowsTelemetry.install(otel);
    journal =
        PostgresJournal.connect(
            JournalStoreConfig.forUrl(TestDatabase.fresh("traces").jdbcUrl()).withPoolSize(8));
    dir = Files.createTempDirectory("traces");
  }

  @AfterEach
  void tearDown() {
    FlowsTelemetry.uninstall();
    buried.countDown();
    if (b != null) {
      b.close();
    }
    journal.close();
    otel.close();
    PgBinaries.deleteTree(dir);
  }

  private FlowsEngine engine(Journal j, String worker) {
    FlowsEngine e =
        new FlowsEngine(
            j,
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
            new WorkerId(worker));
    e.acceptJournalSources();
    return e;
  }

  /**
   * The journal as a worker killed at its body's second MCP call sees it: from that call on,
   * nothing it sends arrives and nothing answers it.
   */
  private Journal dyingAtSecondCall(Journal j) {
    AtomicInteger calls = new AtomicInteger();
    AtomicBoolean dead = new AtomicBoolean();
    return (Journal)
        Proxy.newProxyInstance(
            Journal.class.getClassLoader(),
            new Class<?>[] {Journal.class},
            (proxy, m, args) -> {
              if (m.getName().equals("admit")
                  && args[1] instanceof Admit.Electing
                  && calls.incrementAndGet() == 2) {
                dead.set(true);
              }
              if (dead.get()) {
                while (true) {
                  try {
                    buried.await();
                    throw new IllegalStateException("this worker is dead");
                  } catch (InterruptedException ignored) {
                    // A dead process answers no interrupt either.
                  }
                }
              }
              try {
                return m.invoke(j, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static final String BROKEN =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Broken implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("broken").version("1").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          f.mcp("tools").tool("fail").call(Map.of());
          return input;
        }
      }
      """;

  private LoadedFlow flow() throws Exception {
    return flow("traced.flow.java", FLOW);
  }

  private LoadedFlow flow(String file, String source) throws Exception {
    JsonNode s = McpServerConfigJson.write(Jvm.stdioServer("tools", List.of(), Map.of()));
    Files.writeString(dir.resolve(file), source);
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\"tools\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + "}}}");
    return LoadedFlow.load(dir.resolve(file).toString(), dir);
  }

  private RunSnapshot awaitEnded(RunRef run) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(run).orElseThrow();
      if (s.status().terminal()) {
        return s;
      }
      journal.awaitWork(Duration.ofMillis(200));
    }
    throw new AssertionError("run did not end: " + journal.run(run));
  }

  private static String attr(SpanData s, String key) {
    return String.valueOf(s.getAttributes().get(AttributeKey.stringKey(key)));
  }

  @Test
  void aRunWhoseWorkerDiesBetweenTwoMcpCallsIsOneTraceWithBothAttemptsAndBothCalls()
      throws Exception {
    LoadedFlow flow = flow();
    a = engine(dyingAtSecondCall(journal), "worker-a");
    RunRef root = a.start(flow, JsonNodeFactory.instance.objectNode(), Optional.empty()).runId();
    a.startWorker();
    // Worker B joins only once A holds the body, so A is the one that dies with it.
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (journal.children(root).isEmpty() && System.nanoTime() < until) {
      journal.awaitWork(Duration.ofMillis(100));
    }
    assertThat(journal.children(root)).as("A made the first call").isNotEmpty();
    b = engine(journal, "worker-b");
    b.startWorker();
    RunSnapshot done = awaitEnded(root);
    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    String trace = RunTraces.traceId(root);

    // The run's span, and the span of the attempt that ended it, are emitted as the worker ends
    // them, after the journal shows the run ended: wait for both rather than for a fixed time.
    until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while ((spans.getFinishedSpanItems().stream().noneMatch(s -> s.getName().equals("flow traced"))
            || spans.getFinishedSpanItems().stream()
                    .filter(
                        s ->
                            s.getName().startsWith("step ")
                                && attr(s, "flows.run.id").equals(root.value()))
                    .count()
                < 2)
        && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    List<SpanData> all = spans.getFinishedSpanItems();
    assertThat(all).isNotEmpty().allMatch(s -> s.getTraceId().equals(trace), "one trace");

    SpanData run =
        all.stream().filter(s -> s.getName().equals("flow traced")).findFirst().orElseThrow();
    assertThat(run.getParentSpanContext().isValid()).as("the run's span is the root").isFalse();
    assertThat(run.getSpanId()).isEqualTo(RunTraces.runSpanId(root));
    assertThat(attr(run, "flows.run.status")).isEqualTo("succeeded");

    List<SpanData> body =
        all.stream()
            .filter(
                s ->
                    s.getName().startsWith("step ") && attr(s, "flows.run.id").equals(root.value()))
            .sorted(
                java.util.Comparator.comparing(
                    s -> s.getAttributes().get(AttributeKey.longKey("flows.attempt"))))
            .toList();
    assertThat(body).hasSize(2);
    assertThat(body).allMatch(s -> s.getParentSpanId().equals(run.getSpanId()));
    assertThat(body.get(0).getAttributes().get(AttributeKey.longKey("flows.attempt")))
        .isEqualTo(1L);
    assertThat(attr(body.get(0), "flows.worker.id")).isEqualTo("worker-a");
    assertThat(attr(body.get(0), "flows.completion.reason")).isEqualTo("lease_expired");
    assertThat(attr(body.get(0), "flows.lease.id")).isNotBlank();
    assertThat(attr(body.get(0), "flows.disposition")).isNotBlank();
    assertThat(body.get(1).getAttributes().get(AttributeKey.longKey("flows.attempt")))
        .isEqualTo(2L);
    assertThat(attr(body.get(1), "flows.worker.id")).isEqualTo("worker-b");
    assertThat(attr(body.get(1), "flows.completion.reason")).isEqualTo("success");
    assertThat(attr(body.get(1), "flows.disposition")).isNotBlank();
    assertThat(attr(body.get(0), "flows.lease.id"))
        .isNotEqualTo(attr(body.get(1), "flows.lease.id"));

    List<SpanData> calls = all.stream().filter(s -> s.getName().equals("tools/call meta")).toList();
    assertThat(calls).hasSize(2);
    for (SpanData c : calls) {
      assertThat(c.getKind()).isEqualTo(SpanKind.CLIENT);
      assertThat(attr(c, "mcp.method.name")).isEqualTo("tools/call");
      assertThat(attr(c, "gen_ai.tool.name")).isEqualTo("meta");
      assertThat(attr(c, "gen_ai.operation.name")).isEqualTo("execute_tool");
      assertThat(attr(c, "network.transport")).isEqualTo("pipe");
      assertThat(c.getAttributes().get(AttributeKey.stringKey("error.type"))).isNull();
    }
    // What the server received in _meta is the call span's own context, call by call.
    for (String field : List.of("a", "b")) {
      Matcher m =
          TRACEPARENT.matcher(done.steps().getFirst().output().orElseThrow().path(field).asText());
      assertThat(m.find()).as("traceparent received by call " + field).isTrue();
      assertThat(calls)
          .as("a call span with the context the server received")
          .anyMatch(c -> c.getTraceId().equals(m.group(1)) && c.getSpanId().equals(m.group(2)));
    }
    // The calls were made by the two workers: each under its own attempt of its child run.
    assertThat(calls)
        .extracting(c -> c.getParentSpanContext().getSpanId())
        .doesNotHaveDuplicates()
        .allMatch(
            p ->
                all.stream()
                    .anyMatch(s -> s.getSpanId().equals(p) && s.getName().startsWith("step ")));
    assertThat(
            calls.stream()
                .map(
                    c ->
                        all.stream()
                            .filter(s -> s.getSpanId().equals(c.getParentSpanId()))
                            .findFirst()
                            .map(s -> attr(s, "flows.worker.id"))
                            .orElseThrow())
                .toList())
        .containsExactlyInAnyOrder("worker-a", "worker-b");
  }

  @Test
  void aToolAnsweringIsErrorMarksItsCallSpanToolErrorAndTheFailedRunsSpanAnError()
      throws Exception {
    b = engine(journal, "worker-b");
    RunRef root =
        b.start(
                flow("broken.flow.java", BROKEN),
                JsonNodeFactory.instance.objectNode(),
                Optional.empty())
            .runId();
    b.startWorker();
    assertThat(awaitEnded(root).status()).isEqualTo(RunStatus.FAILED);
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (spans.getFinishedSpanItems().stream().noneMatch(s -> s.getName().equals("flow broken"))
        && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    List<SpanData> all = spans.getFinishedSpanItems();
    SpanData call =
        all.stream().filter(s -> s.getName().equals("tools/call fail")).findFirst().orElseThrow();
    assertThat(attr(call, "error.type")).isEqualTo("tool_error");
    assertThat(call.getStatus().getStatusCode())
        .isEqualTo(io.opentelemetry.api.trace.StatusCode.ERROR);
    assertThat(call.getTraceId()).isEqualTo(RunTraces.traceId(root));
    SpanData run =
        all.stream().filter(s -> s.getName().equals("flow broken")).findFirst().orElseThrow();
    assertThat(attr(run, "flows.run.status")).isEqualTo("failed");
    assertThat(run.getStatus().getStatusCode())
        .isEqualTo(io.opentelemetry.api.trace.StatusCode.ERROR);
  }
}
