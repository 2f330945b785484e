package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.PostgresWorkerRoster;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.journal.WorkerPresence;
import dev.flows.kernel.spec.RecoveryMode;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepSpec;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The console's versions page: the rows of {@code flows versions}, with their notes. */
class ConsoleVersionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static TestDatabase.Fresh db;
  private static PostgresJournal journal;
  private static Console console;

  @BeforeAll
  static void start() {
    db = TestDatabase.fresh("console_versions");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(4));
    console =
        Console.start(
            journal, db.dataSource(), Console.Settings.localhost(0, Optional.of("token-x")));
    ConsoleWorkload work = new ConsoleWorkload(journal);
    // Two runs of triage at version 1, which no worker serves; version 2 served, with no run.
    work.start("triage", Specs.named("triage", body("1")));
    work.start("triage", Specs.named("triage", body("1")));
    new PostgresWorkerRoster(db.dataSource())
        .announce(
            new WorkerPresence(
                new WorkerId("w-new"),
                "host-a",
                7,
                Set.of("default"),
                Set.of("flow:triage@2"),
                Set.of(),
                Duration.ofSeconds(10)));
  }

  @AfterAll
  static void stop() {
    console.close();
    journal.close();
  }

  /** A flow body step of class flow triage at {@code version}, as the SDK lowers a start. */
  private static StepSpec body(String version) {
    FlowBodyInstruction b =
        FlowBodyInstruction.of(
            "triage",
            version,
            new FlowBodyInstruction.Origin.ClassFlow("example.Triage"),
            JsonNodeFactory.instance.objectNode());
    return new StepSpec(
        "body",
        List.of(),
        JsonNodeFactory.instance.nullNode(),
        1,
        Specs.FAST_RETRY,
        OptionalLong.empty(),
        OptionalLong.empty(),
        new StepBody.Agent(b.toJson(), RecoveryMode.RESET, List.of()));
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(console.uri().resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theVersionsPageListsEachVersionsRunsAndWorkersWithoutAToken() throws Exception {
    HttpResponse<String> page = get("/versions?flow=triage");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body())
        .contains("<title>Versions of triage · flows</title>")
        .contains("<table id=\"versions\">")
        .contains("<td>1</td><td title=\"flow:triage@1\">triage@1</td><td>2</td>")
        .contains("<td>none</td><td class=\"note\">no worker serves it: its runs wait</td>")
        .contains(
            "<td>2</td><td title=\"flow:triage@2\">triage@2</td><td>0</td><td></td>"
                + "<td>w-new</td><td class=\"note\"></td>")
        .contains("href=\"/?flow=triage\"");
  }

  @Test
  void theApiAnswersTheSameRowsAsJson() throws Exception {
    HttpResponse<String> r = get("/api/versions?flow=triage");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode v = JSON.readTree(r.body());
    assertThat(v.path("flow").asText()).isEqualTo("triage");
    assertThat(v.path("versions")).hasSize(2);
    JsonNode first = v.path("versions").get(0);
    assertThat(first.path("version").asText()).isEqualTo("1");
    assertThat(first.path("runs").asLong()).isEqualTo(2);
    assertThat(first.path("stranded").asBoolean()).isTrue();
    assertThat(first.path("oldestStartedAt").asText()).isNotEmpty();
    JsonNode second = v.path("versions").get(1);
    assertThat(second.path("workers").get(0).asText()).isEqualTo("w-new");
    assertThat(second.path("retirable").asBoolean()).isFalse();
  }

  @Test
  void underABasePathThePagesFormAndLinksStayInsideIt() throws Exception {
    try (Console prefixed =
        Console.start(
            journal,
            db.dataSource(),
            Console.Settings.localhost(0, Optional.empty()).withBasePath("/ops/"))) {
      String body =
          HTTP.send(
                  HttpRequest.newBuilder(prefixed.uri().resolve("versions?flow=triage"))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      assertThat(body)
          .contains("action=\"/ops/versions\"")
          .contains("href=\"/ops/?flow=triage\"")
          .contains("triage@1");
    }
  }

  @Test
  void anUnknownFlowOrNoFlowSaysThereIsNothingToShow() throws Exception {
    assertThat(get("/versions?flow=nothing").body())
        .contains("flow nothing: no version has runs not ended or a live worker");
    assertThat(get("/versions").body()).contains("Name a flow to see its versions.");
    assertThat(JSON.readTree(get("/api/versions?flow=nothing").body()).path("versions")).isEmpty();
  }
}
