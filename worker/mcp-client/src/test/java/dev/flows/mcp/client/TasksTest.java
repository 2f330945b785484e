package dev.flows.mcp.client;

import static dev.flows.mcp.client.McpTestSupport.WAIT;
import static dev.flows.mcp.client.McpTestSupport.diagnosticOf;
import static dev.flows.mcp.client.McpTestSupport.failureOf;
import static dev.flows.mcp.client.McpTestSupport.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.json.Jackson;
import dev.flows.kernel.mcp.CallOptions;
import dev.flows.kernel.mcp.ConnectionState;
import dev.flows.kernel.mcp.InputRequest;
import dev.flows.kernel.mcp.InputResponses;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpDiagnostic;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpTask;
import dev.flows.kernel.mcp.McpTransportPort;
import dev.flows.kernel.mcp.ToolCallOutcome;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.TaskTestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tasks (2026-07-28 extension and 2025-11-25 experimental) and durable input (2026-07-28 {@code
 * input_required}) against {@link TaskTestServer}, a real server process whose tasks live in a file
 * and whose event log counts every call and task operation.
 */
class TasksTest {
  private static final McpClientConfig LIMITS =
      McpClientConfig.DEFAULTS.withStopGrace(Duration.ofSeconds(2));
  private static final CallOptions TASKS =
      CallOptions.PLAIN.withTasks(CallOptions.TaskMode.AUTOMATIC);

  @TempDir Path dir;
  private final List<McpConnection> connections = new ArrayList<>();
  private final List<AutoCloseable> servers = new ArrayList<>();

  @AfterEach
  void stopAll() throws Exception {
    connections.forEach(McpConnection::stop);
    for (AutoCloseable s : servers) {
      s.close();
    }
  }

  private Path state() {
    return dir.resolve("tasks.jsonl");
  }

  private Path events() {
    return dir.resolve("events.jsonl");
  }

  private McpConnection connect(McpServerConfig server) throws Exception {
    McpConnection c = McpTestSupport.connection(server, LIMITS);
    connections.add(c);
    get(c.connect());
    return c;
  }

  private McpConnection modern(String... more) throws Exception {
    List<String> flags = new ArrayList<>(List.of("--state=" + state(), "--events=" + events()));
    flags.addAll(List.of(more));
    return connect(Jvm.taskStdioServer("jobs", flags.toArray(String[]::new)));
  }

  private McpConnection legacy() throws Exception {
    return connect(
        Jvm.taskStdioServer(
            "jobs", "--state=" + state(), "--events=" + events(), "--protocol=2025-11-25"));
  }

  private List<JsonNode> events(String name) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    if (Files.exists(events())) {
      for (String l : Files.readAllLines(events())) {
        JsonNode n = Jackson.mapper().readTree(l);
        if (n.path("event").asText().equals(name)) {
          out.add(n);
        }
      }
    }
    return out;
  }

  private static Map<String, Object> key(String k) {
    return Map.of(McpTransportPort.IDEMPOTENCY_KEY_META, k);
  }

  private static McpTask created(ToolCallOutcome o) {
    assertThat(o).isInstanceOf(ToolCallOutcome.TaskCreated.class);
    return ((ToolCallOutcome.TaskCreated) o).task();
  }

  /** Polls at the server's interval until {@code until} holds, or the wait runs out. */
  private static McpTask pollUntil(
      McpTransportPort c, McpTask task, java.util.function.Predicate<McpTask> until)
      throws Exception {
    Instant end = Instant.now().plus(WAIT);
    McpTask now = task;
    while (!until.test(now)) {
      assertThat(Instant.now()).as("task %s still %s", task.taskId(), now.status()).isBefore(end);
      Thread.sleep(now.pollInterval().orElse(Duration.ofMillis(100)).toMillis());
      now = get(c.getTask(task.tool(), task.taskId()));
    }
    return now;
  }

  private static McpTask pollToEnd(McpTransportPort c, McpTask task) throws Exception {
    return pollUntil(c, task, McpTask::terminal);
  }

  private static String text(McpTask t) {
    assertThat(t.state()).isInstanceOf(McpTask.State.Completed.class);
    return ((McpTask.State.Completed) t.state()).result().text();
  }

  @Test
  void aTaskBackedCallReturnsTheTaskIdWithoutWaiting() throws Exception {
    Path wire = dir.resolve("wire.log");
    McpConnection c = modern("--log=" + wire);

    long start = System.nanoTime();
    McpTask task = created(get(c.call("slow", Map.of("ms", 60_000), key("k-1"), TASKS)));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(took).isLessThan(Duration.ofSeconds(30));
    assertThat(task.taskId()).isNotBlank();
    assertThat(task.state()).isInstanceOf(McpTask.State.Working.class);
    assertThat(task.pollInterval()).contains(Duration.ofMillis(50));
    assertThat(task.ttl()).contains(Duration.ofHours(1));
    assertThat(task.protocolVersion()).isEqualTo("2026-07-28");
    assertThat(events("tools/call")).hasSize(1);
    assertThat(events("task.created"))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.path("taskId").asText()).isEqualTo(task.taskId());
              assertThat(e.path("key").asText()).isEqualTo("k-1");
            });
    JsonNode sent = null;
    for (String l : Files.readAllLines(wire)) {
      JsonNode n = Jackson.mapper().readTree(l);
      if (n.path("method").asText().equals("tools/call")) {
        sent = n;
      }
    }
    assertThat(sent).isNotNull();
    JsonNode meta = sent.path("params").path("_meta");
    assertThat(
            meta.path("io.modelcontextprotocol/clientCapabilities")
                .path("extensions")
                .has("io.modelcontextprotocol/tasks"))
        .isTrue();
    assertThat(meta.path("io.modelcontextprotocol/protocolVersion").asText())
        .isEqualTo("2026-07-28");
    assertThat(meta.path(McpTransportPort.IDEMPOTENCY_KEY_META).asText()).isEqualTo("k-1");
  }

  @Test
  void pollingTheTaskIdReachesCompletedWithTheToolsResultAndShowsProgressMeanwhile()
      throws Exception {
    McpConnection c = modern();
    McpTask task = created(get(c.call("slow", Map.of("ms", 1500), key("k-2"), TASKS)));

    McpTask working = get(c.getTask("slow", task.taskId()));
    McpTask done = pollToEnd(c, task);

    assertThat(working.status()).isEqualTo("working");
    assertThat(working.statusMessage()).hasValueSatisfying(m -> assertThat(m).contains("% ("));
    assertThat(done.taskId()).isEqualTo(task.taskId());
    assertThat(text(done)).isEqualTo("slow done after 1500 ms");
    assertThat(events("tools/call")).hasSize(1);
    assertThat(events("tasks/get").size()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void killingAndRestartingTheServerMidTaskStillCompletesTheSameTaskId() throws Exception {
    McpConnection c = modern();
    McpTask task = created(get(c.call("slow", Map.of("ms", 4000), key("k-3"), TASKS)));
    ProcessHandle first = serverProcess();

    first.destroyForcibly();
    first.onExit().get();
    await()
        .atMost(WAIT)
        .until(
            () ->
                c.state() == ConnectionState.CONNECTED
                    && serverProcesses().stream().anyMatch(p -> p.pid() != first.pid()));
    McpTask done = pollToEnd(c, get(c.getTask("slow", task.taskId())));

    assertThat(done.taskId()).isEqualTo(task.taskId());
    assertThat(text(done)).isEqualTo("slow done after 4000 ms");
    assertThat(events("tools/call")).hasSize(1);
    assertThat(events("task.created")).hasSize(1);
  }

  @Test
  void anotherClientPollsATaskAnEarlierClientCreated() throws Exception {
    McpConnection first = modern();
    McpTask task = created(get(first.call("slow", Map.of("ms", 1000), key("k-4"), TASKS)));
    first.stop();

    McpConnection second = modern();
    McpTask done = pollToEnd(second, get(second.getTask("slow", task.taskId())));

    assertThat(text(done)).isEqualTo("slow done after 1000 ms");
    assertThat(events("tools/call")).hasSize(1);
  }

  @Test
  void tasksCancelEndsTheTaskCancelled() throws Exception {
    McpConnection c = modern();
    McpTask task = created(get(c.call("slow", Map.of("ms", 60_000), key("k-5"), TASKS)));

    get(c.cancelTask(task.taskId()));
    McpTask after = get(c.getTask("slow", task.taskId()));

    assertThat(after.state()).isInstanceOf(McpTask.State.Cancelled.class);
    assertThat(after.terminal()).isTrue();
    assertThat(events("tasks/cancel"))
        .singleElement()
        .satisfies(e -> assertThat(e.path("taskId").asText()).isEqualTo(task.taskId()));
  }

  @Test
  void anInputRequiredTaskSurfacesItsFormAndCompletesAfterTasksUpdate() throws Exception {
    McpConnection c = modern();
    McpTask task = created(get(c.call("ask_task", Map.of("ms", 0), key("k-6"), TASKS)));

    McpTask asking = pollUntil(c, task, t -> t.status().equals("input_required"));
    Map<String, InputRequest> requests = ((McpTask.State.InputRequired) asking.state()).requests();
    assertThat(requests).containsOnlyKeys("approval");
    InputRequest.Form form = (InputRequest.Form) requests.get("approval");
    assertThat(form.requestedSchema().at("/properties/approved/type").asText())
        .isEqualTo("boolean");

    get(
        c.updateTask(
            task.taskId(),
            Map.of(
                "approval",
                InputResponses.accept(
                    JsonNodeFactory.instance.objectNode().put("approved", true)))));
    McpTask done = pollToEnd(c, asking);

    assertThat(text(done)).isEqualTo("approved=true");
    assertThat(events("tasks/update")).hasSize(1);
  }

  @Test
  void aPlainCallAnsweredInputRequiredIsCompletedByTheReissueWithTheSameStateAndKey()
      throws Exception {
    McpConnection c = modern();
    CallOptions durable = CallOptions.PLAIN.withDurableInput();

    ToolCallOutcome first = get(c.call("ask_form", Map.of(), key("k-7"), durable));

    assertThat(first).isInstanceOf(ToolCallOutcome.InputRequired.class);
    ToolCallOutcome.InputRequired asked = (ToolCallOutcome.InputRequired) first;
    assertThat(asked.requests()).containsOnlyKeys("name");
    InputRequest.Form form = (InputRequest.Form) asked.requests().get("name");
    assertThat(form.message()).isEqualTo("Who is asking?");
    assertThat(form.requestedSchema().at("/required/0").asText()).isEqualTo("name");
    assertThat(asked.requestState()).isPresent();

    ToolCallOutcome second =
        get(
            c.call(
                "ask_form",
                Map.of(),
                key("k-7"),
                durable.answering(
                    Map.of(
                        "name",
                        InputResponses.accept(
                            JsonNodeFactory.instance.objectNode().put("name", "Ada"))),
                    asked.requestState())));

    assertThat(second).isInstanceOf(ToolCallOutcome.Completed.class);
    assertThat(((ToolCallOutcome.Completed) second).result().text()).isEqualTo("hello Ada");
    List<JsonNode> calls = events("tools/call");
    assertThat(calls).hasSize(2);
    assertThat(calls).allSatisfy(e -> assertThat(e.path("key").asText()).isEqualTo("k-7"));
    assertThat(calls.get(0).has("requestState")).isFalse();
    assertThat(calls.get(1).path("requestState").asText()).isEqualTo(asked.requestState().get());
    assertThat(calls.get(1).at("/inputResponses/name/content/name").asText()).isEqualTo("Ada");
  }

  @Test
  void aReissueWhoseRequestStateWasAlteredIsRefusedByTheServer() throws Exception {
    McpConnection c = modern();
    CallOptions durable = CallOptions.PLAIN.withDurableInput();
    ToolCallOutcome.InputRequired asked =
        (ToolCallOutcome.InputRequired) get(c.call("ask_form", Map.of(), key("k-8"), durable));

    McpDiagnostic d =
        diagnosticOf(
            c.call(
                "ask_form",
                Map.of(),
                key("k-8"),
                durable.answering(
                    Map.of(
                        "name",
                        InputResponses.accept(
                            JsonNodeFactory.instance.objectNode().put("name", "Ada"))),
                    asked.requestState().map(s -> s + "x"))));

    assertThat(d).isEqualTo(McpDiagnostic.MCP_TOOL_ERROR);
  }

  @Test
  void aUrlInputIsSurfacedAndTheReissueAfterTheVisitCompletes() throws Exception {
    McpConnection c = modern();
    CallOptions durable = CallOptions.PLAIN.withDurableInput();

    ToolCallOutcome.InputRequired asked =
        (ToolCallOutcome.InputRequired) get(c.call("ask_url", Map.of(), key("k-9"), durable));
    InputRequest.Url url = (InputRequest.Url) asked.requests().get("login");
    ToolCallOutcome done =
        get(
            c.call(
                "ask_url",
                Map.of(),
                key("k-9"),
                durable.answering(
                    Map.of("login", InputResponses.accepted()), asked.requestState())));

    assertThat(url.url()).startsWith("https://login.example.invalid/authorize?state=");
    assertThat(url.message()).isEqualTo("Sign in to continue");
    assertThat(((ToolCallOutcome.Completed) done).result().text()).isEqualTo("signed in");
  }

  @Test
  void aCallWithTasksForbiddenDoesNotDeclareTheExtensionAndGetsTheResult() throws Exception {
    McpConnection c = modern();

    ToolCallOutcome o =
        get(
            c.call(
                "slow",
                Map.of("ms", 50),
                key("k-10"),
                CallOptions.PLAIN.withTasks(CallOptions.TaskMode.FORBIDDEN).withDurableInput()));

    assertThat(((ToolCallOutcome.Completed) o).result().text()).isEqualTo("slow done after 50 ms");
    assertThat(events("tools/call"))
        .singleElement()
        .satisfies(e -> assertThat(e.path("asTask").asBoolean()).isFalse());
    assertThat(events("task.created")).isEmpty();
  }

  @Test
  void requiringATaskOfAServerWithoutTheExtensionIsRefusedWithoutSendingTheCall() throws Exception {
    Path wire = dir.resolve("plain.log");
    McpConnection c = connect(Jvm.modernStdioServer("plain", "--log=" + wire));

    McpDiagnostic d =
        diagnosticOf(
            c.call(
                "echo",
                Map.of("text", "hi"),
                key("k-11"),
                CallOptions.PLAIN.withTasks(CallOptions.TaskMode.REQUIRED)));
    ToolCallOutcome auto = get(c.call("echo", Map.of("text", "hi"), key("k-12"), TASKS));

    assertThat(d).isEqualTo(McpDiagnostic.MCP_TOOL_ERROR);
    assertThat(((ToolCallOutcome.Completed) auto).result().text()).isEqualTo("hi");
    assertThat(Files.readAllLines(wire).stream().filter(l -> l.contains("\"tools/call\"")))
        .hasSize(1);
  }

  @Test
  void overStreamableHttpATaskIsCreatedAndPolledToCompletion() throws Exception {
    TaskTestServer server = TaskTestServer.http(state(), events());
    servers.add(server);
    McpConnection c =
        connect(new McpServerConfig.Http("web", server.url(), Map.of(), new McpAuth.None()));

    McpTask task = created(get(c.call("slow", Map.of("ms", 500), key("k-13"), TASKS)));
    McpTask done = pollToEnd(c, task);

    assertThat(c.protocolVersion()).isEqualTo("2026-07-28");
    assertThat(text(done)).isEqualTo("slow done after 500 ms");
    assertThat(server.requests()).contains("tools/call slow", "tasks/get " + task.taskId());
  }

  @Test
  void aServerOf2025_11_25RunsAToolThatAllowsTasksAsATaskAndTasksResultGivesItsResult()
      throws Exception {
    McpConnection c = legacy();

    McpTask task = created(get(c.call("slow", Map.of("ms", 800), key("k-14"), TASKS)));
    McpTask done = pollToEnd(c, task);

    assertThat(c.protocolVersion()).isEqualTo("2025-11-25");
    assertThat(task.protocolVersion()).isEqualTo("2025-11-25");
    assertThat(task.pollInterval()).contains(Duration.ofMillis(50));
    assertThat(text(done)).isEqualTo("slow done after 800 ms");
    assertThat(events("tools/call"))
        .singleElement()
        .satisfies(e -> assertThat(e.path("key").asText()).isEqualTo("k-14"));
    assertThat(events("tasks/result")).isNotEmpty();
  }

  @Test
  void aServerOf2025_11_25CancelsATaskAndRefusesATaskForAToolThatForbidsThem() throws Exception {
    McpConnection c = legacy();
    McpTask task = created(get(c.call("slow", Map.of("ms", 60_000), key("k-15"), TASKS)));

    get(c.cancelTask(task.taskId()));
    McpTask after = get(c.getTask("slow", task.taskId()));
    McpDiagnostic refused =
        diagnosticOf(
            c.call(
                "echo",
                Map.of("text", "x"),
                key("k-16"),
                CallOptions.PLAIN.withTasks(CallOptions.TaskMode.REQUIRED)));
    ToolCallOutcome plain = get(c.call("echo", Map.of("text", "x"), key("k-17"), TASKS));

    assertThat(after.status()).isEqualTo("cancelled");
    assertThat(refused).isEqualTo(McpDiagnostic.MCP_TOOL_ERROR);
    assertThat(((ToolCallOutcome.Completed) plain).result().text()).isEqualTo("x");
    assertThat(failureOf(c.updateTask(task.taskId(), Map.of())).getMessage())
        .contains("2026-07-28");
  }

  private List<ProcessHandle> serverProcesses() {
    String flag = "--state=" + state();
    return ProcessHandle.current()
        .descendants()
        .filter(ProcessHandle::isAlive)
        .filter(p -> p.info().arguments().map(a -> List.of(a).contains(flag)).orElse(false))
        .toList();
  }

  private ProcessHandle serverProcess() {
    List<ProcessHandle> all = serverProcesses();
    assertThat(all).hasSize(1);
    return all.get(0);
  }
}
