package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.mcp.testkit.NoProcessLeftBehind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A call the server answers {@code input_required} waits in the journal for a person: real worker
 * processes through the launcher and the real task test server (2026-07-28 over stdio) that asks a
 * form; the first worker is SIGKILLed while the call is parked, the answer is given with {@code
 * flows runs answer}, and a second worker re-issues the call.
 */
@ExtendWith(NoProcessLeftBehind.class)
class DurableInputLauncherIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path home;
  private static Path flowDir;
  private static Path asker;
  private static Path events;

  static final String ASKER =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Asker implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("asker").mcp("forms").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          String said = f.mcp("forms").tool("ask_form").call(Map.of()).text();
          return JsonNodeFactory.instance.objectNode().put("said", said);
        }
      }
      """;

  @BeforeAll
  static void setUp() throws IOException {
    home = Files.createTempDirectory("flows-home-input-it");
    flowDir = Files.createTempDirectory("flows-input-it");
    asker = Files.writeString(flowDir.resolve("asker.flow.java"), ASKER);
    events = flowDir.resolve("events.jsonl");
    McpServerConfig.Stdio server =
        Jvm.taskStdioServer(
            "forms", "--state=" + flowDir.resolve("tasks.json"), "--events=" + events);
    ObjectNode config = JSON.createObjectNode();
    ObjectNode forms = config.putObject("mcp").putObject("forms");
    forms.put("command", server.command());
    forms.put("protocol", "2026-07-28");
    ArrayNode args = forms.putArray("args");
    server.args().forEach(args::add);
    Files.writeString(flowDir.resolve("flows.json"), config.toString());
  }

  @AfterAll
  static void stop() throws Exception {
    flows("db", "stop");
    PgBinaries.deleteTree(home);
  }

  @Test
  void aCallParkedForInputIsAnsweredOnceValidAndReissuedByAnotherWorkerWithTheSameKeyAndState()
      throws Exception {
    Process first = start("worker", "--flows", flowDir.toString());
    String run;
    JsonNode parked;
    try {
      Launcher.Ran started = flows("run", asker.toString(), "--input", "{}", "--detach", "--json");
      assertThat(started.exit()).as(started.err()).isZero();
      run = JSON.readTree(started.out().lines().findFirst().orElseThrow()).path("run").asText();
      parked = awaitInputRequest(run);
    } finally {
      ProcessTree.kill(first); // SIGKILL while the call waits for its answer
    }
    JsonNode schema = parked.path("requests").path("name").path("params").path("requestedSchema");
    assertThat(schema.path("properties").path("name").path("type").asText()).isEqualTo("string");
    String call = parked.path("runId").asText();
    String step = parked.path("stepId").asText();
    Launcher.Ran text = flows("runs", "show", run);
    assertThat(text.out()).contains("asks for input name: Who is asking?").contains("to answer:");
    JsonNode before = flows("runs", "show", call, "--json").json().path("run").path("timeline");

    Launcher.Ran bad = flows("runs", "answer", call, step, "{\"name\": 5}");
    assertThat(bad.exit()).isEqualTo(Exit.REFUSED);
    assertThat(bad.errLines()).hasSize(1);
    assertThat(bad.errLines().getFirst())
        .startsWith("error invalid_input: ")
        .contains("/name: expected string, got number");
    JsonNode after = flows("runs", "show", call, "--json").json().path("run").path("timeline");
    assertThat(after).as("a refused answer writes nothing").isEqualTo(before);

    Launcher.Ran good = flows("runs", "answer", call, step, "{\"name\": \"Ada\"}");
    assertThat(good.exit()).as(good.err()).isZero();

    Process second = start("worker", "--flows", flowDir.toString());
    try {
      Launcher.Ran watch = flows("runs", "watch", run, "--json");
      assertThat(watch.exit()).as(watch.err()).isZero();
      List<String> lines = watch.out().lines().filter(l -> !l.isBlank()).toList();
      assertThat(JSON.readTree(lines.getLast()).path("output").path("said").asText())
          .isEqualTo("hello Ada");
    } finally {
      ProcessTree.stop(second);
    }

    JsonNode attempts =
        flows("runs", "show", call, "--json")
            .json()
            .path("run")
            .path("steps")
            .get(0)
            .path("attempts");
    assertThat(attempts).hasSize(2);
    assertThat(attempts.get(1).path("workerId").asText())
        .as("a different worker re-issued the call")
        .isNotEqualTo(attempts.get(0).path("workerId").asText());
    String journaledState = attempts.get(0).path("diagnostic").path("requestState").asText();
    assertThat(journaledState).isNotBlank();

    List<JsonNode> calls = new ArrayList<>();
    for (String line : Files.readAllLines(events)) {
      JsonNode e = JSON.readTree(line);
      if (e.path("event").asText().equals("tools/call")) {
        calls.add(e);
      }
    }
    assertThat(calls).hasSize(2);
    assertThat(calls.get(0).path("key").asText())
        .isNotBlank()
        .isEqualTo(calls.get(1).path("key").asText());
    assertThat(calls.get(0).has("requestState")).isFalse();
    assertThat(calls.get(1).path("requestState").asText()).isEqualTo(journaledState);
    assertThat(
            calls.get(1).path("inputResponses").path("name").path("content").path("name").asText())
        .isEqualTo("Ada");
  }

  /** The parked call's input request as {@code runs show --json} gives it on the root's step. */
  private static JsonNode awaitInputRequest(String run) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (System.nanoTime() < until) {
      Launcher.Ran shown = flows("runs", "show", run, "--json");
      if (shown.exit() == 0) {
        for (JsonNode s : shown.json().path("run").path("steps")) {
          if (s.has("inputRequest")) {
            return s.get("inputRequest");
          }
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("the call never parked for input");
  }

  private static Launcher.Ran flows(String... args) throws Exception {
    return new Launcher(home).run(args);
  }

  private static Process start(String... args) throws IOException {
    return new Launcher(home).start(args);
  }
}
