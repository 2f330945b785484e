package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.StepStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The web console's HTTP endpoints against a migrated Postgres database and the real journal. */
class ConsoleTest {
  private static final String TOKEN = "s3cret-operator-token";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TestDatabase.Fresh db;
  private static DataSource dataSource;
  private static PostgresJournal journal;
  private static ConsoleWorkload work;
  private static Console console;
  private static Console readOnly;
  private static final HttpClient HTTP =
      HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

  @BeforeAll
  static void start() {
    db = TestDatabase.fresh("console");
    dataSource = db.dataSource();
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(4));
    work = new ConsoleWorkload(journal);
    console = Console.start(journal, dataSource, Console.Settings.localhost(0, Optional.of(TOKEN)));
    readOnly = Console.start(journal, dataSource, Console.Settings.localhost(0, Optional.empty()));
  }

  @AfterAll
  static void stop() {
    console.close();
    readOnly.close();
    journal.close();
  }

  private static HttpResponse<String> get(Console c, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(c.uri().resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(
      Console c, String path, Map<String, String> form, Optional<String> bearer) throws Exception {
    return post(c, path, form, bearer, Map.of());
  }

  private static HttpResponse<String> post(
      Console c,
      String path,
      Map<String, String> form,
      Optional<String> bearer,
      Map<String, String> headers)
      throws Exception {
    StringBuilder body = new StringBuilder();
    form.forEach(
        (k, v) ->
            body.append(body.isEmpty() ? "" : "&")
                .append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    HttpRequest.Builder b =
        HttpRequest.newBuilder(c.uri().resolve(path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    bearer.ifPresent(t -> b.header("Authorization", "Bearer " + t));
    headers.forEach(b::header);
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    return JSON.readTree(r.body());
  }

  private static List<JournalRecord> entries(RunRef run) {
    return journal.entries(run);
  }

  @Test
  void aCallWaitingForApprovalIsApprovedWithEditedArgumentsOrDeniedFromItsForm() throws Exception {
    RunRef edited = work.parkedForApproval("approval-edit");
    HttpResponse<String> page = get(console, "/runs/" + edited.value());
    assertThat(page.body())
        .contains("fieldset class=\"approval\"")
        .contains("payments/refund")
        .contains("name=\"approval.decision\"")
        .contains("&quot;amount&quot; : 12");
    HttpResponse<String> bad =
        post(
            console,
            "/api/runs/" + edited.value() + "/answer",
            Map.of("step", "call", "approval.decision", "maybe"),
            Optional.of(TOKEN));
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(json(bad).at("/error/code").asText()).isEqualTo("approval_answer_invalid");
    HttpResponse<String> sent =
        post(
            console,
            "/api/runs/" + edited.value() + "/answer",
            Map.of("step", "call", "approval.decision", "args", "approval.args", "{\"amount\":5}"),
            Optional.of(TOKEN));
    assertThat(sent.statusCode()).as(sent.body()).isEqualTo(200);
    JournalEntry.StepAnswered answered = answered(edited);
    assertThat(answered.responses().toString())
        .isEqualTo("{\"approval\":{\"args\":{\"amount\":5}}}");
    assertThat(answered.by()).startsWith("ui:");

    RunRef denied = work.parkedForApproval("approval-deny");
    post(
        console,
        "/api/runs/" + denied.value() + "/answer",
        Map.of("step", "call", "approval.decision", "deny", "approval.reason", "too much"),
        Optional.of(TOKEN));
    assertThat(answered(denied).responses().toString())
        .isEqualTo("{\"approval\":{\"deny\":\"too much\"}}");
  }

  private static JournalEntry.StepAnswered answered(RunRef run) {
    return entries(run).stream()
        .map(JournalRecord::entry)
        .filter(JournalEntry.StepAnswered.class::isInstance)
        .map(JournalEntry.StepAnswered.class::cast)
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no step.answered in " + run.value()));
  }

  @Test
  void theRunListShowsRootRunsNewestFirstAsPageAndJson() throws Exception {
    RunRef older = work.succeeded("list-older", JsonNodeFactory.instance.objectNode());
    RunRef newer = work.failed("list-newer", "boom");
    HttpResponse<String> page = get(console, "/");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
    assertThat(page.body()).contains("/runs/" + older.value()).contains("data-live");
    assertThat(page.body().indexOf(newer.value())).isLessThan(page.body().indexOf(older.value()));
    JsonNode runs = json(get(console, "/api/runs")).path("runs");
    List<String> ids = runs.findValuesAsText("runId");
    assertThat(ids).contains(older.value(), newer.value());
    assertThat(ids.indexOf(newer.value())).isLessThan(ids.indexOf(older.value()));
  }

  @Test
  void filtersNarrowTheListByStatusFlowAndRunIdOrAdmissionKey() throws Exception {
    RunRef ok = work.succeeded("filter-ok", JsonNodeFactory.instance.objectNode());
    RunRef bad = work.failed("filter-bad", "boom");
    JsonNode failed = json(get(console, "/api/runs?status=failed")).path("runs");
    assertThat(failed.findValuesAsText("status")).containsOnly("failed");
    assertThat(failed.findValuesAsText("runId")).contains(bad.value()).doesNotContain(ok.value());
    JsonNode byFlow = json(get(console, "/api/runs?flow=filter-ok&since=1h")).path("runs");
    assertThat(byFlow.findValuesAsText("runId")).containsExactly(ok.value());
    String key = URLEncoder.encode(work.admissionKey(bad), StandardCharsets.UTF_8);
    assertThat(json(get(console, "/api/runs?run=" + key)).path("runs").findValuesAsText("runId"))
        .containsExactly(bad.value());
    assertThat(
            json(get(console, "/api/runs?run=" + ok.value()))
                .path("runs")
                .findValuesAsText("runId"))
        .containsExactly(ok.value());
    HttpResponse<String> page = get(console, "/?status=failed");
    assertThat(page.body()).contains(bad.value()).doesNotContain("/runs/" + ok.value() + "\"");
    assertThat(page.body()).contains("<option selected>failed</option>");
  }

  @Test
  void aBadFilterIsRefusedWithItsCodeOnOneLineAndNoStackTrace() throws Exception {
    HttpResponse<String> page = get(console, "/?status=bogus");
    assertThat(page.statusCode()).isEqualTo(400);
    assertThat(page.body())
        .contains("error invalid_input: unknown run status bogus (at status) fix:")
        .doesNotContain("Exception")
        .doesNotContain("\tat ");
    HttpResponse<String> api = get(console, "/api/runs?since=yesterday");
    assertThat(api.statusCode()).isEqualTo(400);
    assertThat(json(api).path("error").path("code").asText()).isEqualTo("invalid_input");
    assertThat(json(api).path("error").path("place").asText()).isEqualTo("since");
    assertThat(get(console, "/api/runs?limit=0").statusCode()).isEqualTo(400);
    assertThat(get(console, "/api/runs?limit=many").statusCode()).isEqualTo(400);
  }

  @Test
  void anUnknownOverviewWindowIsRefusedWithItsCode() throws Exception {
    HttpResponse<String> page = get(console, "/?window=3h");
    assertThat(page.statusCode()).isEqualTo(400);
    assertThat(page.body())
        .contains("error invalid_input: unknown window 3h (at window) fix: use 1h, 6h, 24h or 7d");
    assertThat(get(console, "/?window=7d").body()).contains("data-window=\"7d\"");
  }

  @Test
  void aLongRunLinksItsJournalAndServesTheDetailOfLaterTimelineItemsOnTheirOwn() throws Exception {
    RunRef many = work.manyMemos("console-long", 150);
    String run = "/runs/" + many.value();
    HttpResponse<String> page = get(console, run);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body())
        .contains("<a id=\"journal-view\" href=\"" + run + "/journal\">")
        .contains("data-detail=\"" + run + "/timeline/100\"")
        .doesNotContain("data-detail=\"" + run + "/timeline/99\"");
    HttpResponse<String> journalPage = get(console, run + "/journal");
    assertThat(journalPage.statusCode()).isEqualTo(200);
    assertThat(journalPage.body().split("<tr><td>", -1).length - 1)
        .isEqualTo(journal.entries(many).size());
    HttpResponse<String> item = get(console, run + "/timeline/120");
    assertThat(item.statusCode()).isEqualTo(200);
    assertThat(item.body()).startsWith("<dl class=\"facts\">").contains("surfacePath");
    assertThat(get(console, run + "/timeline/99999").statusCode()).isEqualTo(400);
    assertThat(get(console, run + "/nothing").statusCode()).isEqualTo(405);
  }

  @Test
  void aRunsDetailShowsInputEffectsReceiptsAttemptsAndTheJournal() throws Exception {
    RunRef run = work.mcpCall("detail-mcp");
    HttpResponse<String> page = get(console, "/runs/" + run.value());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body())
        .contains("printer on fire")
        .contains("/mcp/tickets/create")
        .contains(run.value() + "/call")
        .contains("T-42")
        .contains(ConsoleWorkload.WORKER.value())
        .contains("step.attempt.started")
        .contains("effect.confirmed")
        .contains("run.completed");
    JsonNode detail = json(get(console, "/api/runs/" + run.value())).path("run");
    assertThat(detail.path("input").path("title").asText()).isEqualTo("printer on fire");
    JsonNode step = detail.path("steps").get(0);
    assertThat(step.path("attempts").get(0).path("leaseId").asText()).isNotBlank();
    assertThat(page.body()).contains(step.path("attempts").get(0).path("leaseId").asText());
    assertThat(step.path("effects").get(0).path("idempotencyKey").asText()).isNotBlank();
    assertThat(page.body()).contains(step.path("effects").get(0).path("idempotencyKey").asText());
    assertThat(detail.path("output").path("output").path("ticket").asText()).isEqualTo("T-42");
  }

  @Test
  void aFailedRunsDetailShowsItsDiagnosticAndChildRunsNestUnderIt() throws Exception {
    RunRef run = work.failed("detail-failed", "disk_full");
    HttpResponse<String> page = get(console, "/runs/" + run.value());
    assertThat(page.body())
        .contains("id=\"failure\"")
        .contains("disk_full")
        .contains("the command exited 1")
        .contains("look at its stderr");
    assertThat(
            json(get(console, "/api/runs/" + run.value()))
                .path("run")
                .path("failure")
                .path("diagnostic")
                .asText())
        .isEqualTo("disk_full");
  }

  @Test
  void aRunsTreeShowsChildrenAndGrandchildrenAndHighlightsAFailedLeafUpToTheRoot()
      throws Exception {
    RunRef[] tree = work.treeWithAFailedLeaf("tree-ui");
    String page = get(console, "/runs/" + tree[0].value()).body();
    assertThat(page).contains("<section id=\"tree\">");
    for (RunRef r : tree) {
      assertThat(page).contains("<li data-run=\"" + r.value() + "\"");
      int at = page.indexOf("<li data-run=\"" + r.value() + "\"");
      assertThat(page.substring(at, page.indexOf('>', at)))
          .as(r.value())
          .contains("class=\"tree-hot tree-failed\"");
    }
    int leaf = page.indexOf("<li data-run=\"" + tree[2].value() + "\"");
    assertThat(page.substring(leaf, page.indexOf('>', leaf))).contains("data-status=\"failed\"");
    RunRef calm = work.succeeded("tree-none", JsonNodeFactory.instance.objectNode());
    assertThat(get(console, "/runs/" + calm.value()).body()).doesNotContain("id=\"tree\"");
  }

  @Test
  void anUnknownRunIsNotFoundWithRunNotFound() throws Exception {
    HttpResponse<String> page = get(console, "/runs/run_does_not_exist");
    assertThat(page.statusCode()).isEqualTo(404);
    assertThat(page.body()).contains("error run_not_found: no run with id run_does_not_exist");
    HttpResponse<String> api = get(console, "/api/runs/run_does_not_exist");
    assertThat(api.statusCode()).isEqualTo(404);
    assertThat(json(api).path("error").path("code").asText()).isEqualTo("run_not_found");
    HttpResponse<String> malformed = get(console, "/api/runs/%3Cbad%3E");
    assertThat(malformed.statusCode()).isEqualTo(400);
    assertThat(json(malformed).path("error").path("code").asText()).isEqualTo("invalid_input");
    assertThat(get(console, "/nowhere").statusCode()).isEqualTo(404);
  }

  @Test
  void whatTheJournalHoldsIsEscapedInThePage() throws Exception {
    RunRef run =
        work.succeeded(
            "escape", JsonNodeFactory.instance.objectNode().put("x", "<script>alert(1)</script>"));
    String body = get(console, "/runs/" + run.value()).body();
    assertThat(body).doesNotContain("<script>alert(1)</script>");
    assertThat(body).contains("&lt;script&gt;alert(1)&lt;/script&gt;");
    assertThat(get(console, "/?flow=%3Cscript%3Ex").body()).doesNotContain("<script>x");
  }

  @Test
  void anActionWithoutTheTokenOrWithAWrongOneIsRefusedAndWritesNothing() throws Exception {
    RunRef run = work.running("refused");
    int before = entries(run).size();
    HttpResponse<String> none =
        post(console, "/api/runs/" + run.value() + "/cancel", Map.of(), Optional.empty());
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(json(none).path("error").path("code").asText()).isEqualTo("ui_unauthorized");
    HttpResponse<String> wrong =
        post(console, "/api/runs/" + run.value() + "/cancel", Map.of(), Optional.of("guess"));
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertThat(json(wrong).path("error").path("code").asText()).isEqualTo("ui_forbidden");
    HttpResponse<String> wrongForm =
        post(
            console,
            "/runs/" + run.value() + "/cancel",
            Map.of("token", "guess"),
            Optional.empty());
    assertThat(wrongForm.statusCode()).isEqualTo(403);
    assertThat(wrongForm.body()).contains("error ui_forbidden: the operator token does not match");
    assertThat(wrongForm.body()).doesNotContain(TOKEN);
    assertThat(entries(run)).hasSize(before);
    assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    HttpResponse<String> get = get(console, "/runs/" + run.value() + "/cancel");
    assertThat(get.statusCode()).isEqualTo(405);
  }

  @Test
  void aFormPostWithTheTokenButWithoutTheSessionsCsrfTokenOrFromAnotherOriginIsRefused()
      throws Exception {
    RunRef run = work.running("csrf");
    int before = entries(run).size();
    HttpResponse<String> noCsrf =
        post(console, "/runs/" + run.value() + "/cancel", Map.of("token", TOKEN), Optional.empty());
    assertThat(noCsrf.statusCode()).isEqualTo(403);
    assertThat(noCsrf.body()).contains("error ui_cross_site: the form does not carry");
    HttpResponse<String> page = get(console, "/runs/" + run.value());
    String cookie = page.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
    HttpResponse<String> forged =
        post(
            console,
            "/runs/" + run.value() + "/cancel",
            Map.of("token", TOKEN, "csrf", "A".repeat(43)),
            Optional.empty(),
            Map.of("Cookie", cookie));
    assertThat(forged.statusCode()).isEqualTo(403);
    HttpResponse<String> foreign =
        post(
            console,
            "/api/runs/" + run.value() + "/cancel",
            Map.of(),
            Optional.of(TOKEN),
            Map.of("Origin", "http://evil.example"));
    assertThat(foreign.statusCode()).isEqualTo(403);
    assertThat(json(foreign).path("error").path("code").asText()).isEqualTo("ui_cross_site");
    HttpResponse<String> crossSite =
        post(
            console,
            "/api/runs/" + run.value() + "/cancel",
            Map.of(),
            Optional.of(TOKEN),
            Map.of("Sec-Fetch-Site", "same-site"));
    assertThat(crossSite.statusCode()).isEqualTo(403);
    assertThat(entries(run)).hasSize(before);
    assertThat(page.headers().firstValue("Set-Cookie").orElseThrow())
        .contains("HttpOnly")
        .contains("SameSite=Strict");
  }

  @Test
  void aCancelWithTheTokenIsJournaledWithTheActor() throws Exception {
    RunRef run = work.running("cancel-me");
    HttpResponse<String> r =
        post(
            console,
            "/api/runs/" + run.value() + "/cancel",
            Map.of("reason", "stuck"),
            Optional.of(TOKEN));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(json(r).path("status").asText()).isEqualTo("canceled");
    assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.CANCELED);
    assertThat(entries(run))
        .map(JournalRecord::entry)
        .filteredOn(e -> e instanceof JournalEntry.RunCancelRequested)
        .singleElement()
        .extracting(e -> ((JournalEntry.RunCancelRequested) e).reason())
        .isEqualTo("stuck (by ui:127.0.0.1)");
  }

  @Test
  void aFormActionRedirectsToTheRunAndResumeAndResolveRecordWhoDidIt() throws Exception {
    RunRef failed = work.failed("resume-ui", "boom");
    HttpResponse<String> page = get(console, "/runs/" + failed.value());
    String cookie = page.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
    java.util.regex.Matcher csrf =
        java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page.body());
    assertThat(csrf.find()).as("the page's forms carry the CSRF token").isTrue();
    HttpResponse<String> r =
        post(
            console,
            "/runs/" + failed.value() + "/resume",
            Map.of("token", TOKEN, "csrf", csrf.group(1)),
            Optional.empty(),
            Map.of("Cookie", cookie));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(303);
    assertThat(r.headers().firstValue("Location").orElseThrow())
        .startsWith("/runs/" + failed.value() + "?done=");
    assertThat(entries(failed))
        .map(JournalRecord::entry)
        .filteredOn(e -> e instanceof JournalEntry.RunResumed)
        .singleElement()
        .extracting(e -> ((JournalEntry.RunResumed) e).by())
        .isEqualTo("ui:127.0.0.1");
    RunRef parked = work.parked("resolve-ui");
    HttpResponse<String> resolved =
        post(
            console,
            "/api/runs/" + parked.value() + "/resolve",
            Map.of("step", "a", "outcome", "performed", "output", "{\"id\":\"ch_9\"}"),
            Optional.of(TOKEN));
    assertThat(resolved.statusCode()).as(resolved.body()).isEqualTo(200);
    assertThat(journal.run(parked).orElseThrow().step("a").orElseThrow().status())
        .isEqualTo(StepStatus.SUCCEEDED);
    assertThat(entries(parked))
        .map(JournalRecord::entry)
        .filteredOn(e -> e instanceof JournalEntry.StepResolved)
        .singleElement()
        .extracting(e -> ((JournalEntry.StepResolved) e).by())
        .isEqualTo("ui:127.0.0.1");
    HttpResponse<String> badJson =
        post(
            console,
            "/api/runs/" + work.parked("resolve-bad").value() + "/resolve",
            Map.of("step", "a", "outcome", "performed", "output", "{nope"),
            Optional.of(TOKEN));
    assertThat(badJson.statusCode()).isEqualTo(400);
    assertThat(json(badJson).path("error").path("place").asText()).isEqualTo("output");
  }

  @Test
  void aSignalCarriesTheActorInItsKeyAndARerunOfANonFlowRunIsRefused() throws Exception {
    RunRef run = work.running("signal-ui");
    HttpResponse<String> r =
        post(
            console,
            "/api/runs/" + run.value() + "/signal",
            Map.of("name", "approve", "payload", "{\"ok\":true}"),
            Optional.of(TOKEN));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT dedup_key, payload::text FROM flows.signals WHERE run_id = ?")) {
      ps.setString(1, run.value());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).startsWith("ui:127.0.0.1/");
        assertThat(rs.getString(2)).contains("\"ok\": true");
      }
    }
    assertThat(get(console, "/runs/" + run.value()).body()).contains("approve").contains("pending");
    RunRef ended = work.succeeded("rerun-ui", JsonNodeFactory.instance.objectNode());
    HttpResponse<String> rerun =
        post(console, "/api/runs/" + ended.value() + "/rerun", Map.of(), Optional.of(TOKEN));
    assertThat(rerun.statusCode()).isEqualTo(400);
    assertThat(json(rerun).path("error").path("message").asText()).contains("is not a flow run");
    HttpResponse<String> unknown =
        post(console, "/api/runs/" + run.value() + "/explode", Map.of(), Optional.of(TOKEN));
    assertThat(unknown.statusCode()).isEqualTo(404);
  }

  @Test
  void aConsoleWithoutATokenIsReadOnly() throws Exception {
    RunRef run = work.running("read-only");
    String page = get(readOnly, "/runs/" + run.value()).body();
    assertThat(page).contains("id=\"readonly\"").doesNotContain("<form class=\"action\"");
    assertThat(get(console, "/runs/" + run.value()).body()).contains("<form class=\"action\"");
    HttpResponse<String> r =
        post(readOnly, "/api/runs/" + run.value() + "/cancel", Map.of(), Optional.of(TOKEN));
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(json(r).path("error").path("code").asText()).isEqualTo("ui_read_only");
    assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
  }

  @Test
  void flowsUiServesOnAFreePortAndPrintsItsUrlOnOneLine() throws Exception {
    Path home = Files.createTempDirectory("flows-ui-home");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    AtomicInteger exit = new AtomicInteger(-1);
    Thread t =
        new Thread(
            () ->
                exit.set(
                    FlowsCli.run(
                        new String[] {"ui", "--port", "0"},
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        Map.of(
                            Session.HOME_VARIABLE, home.toString(),
                            DatabaseTarget.URL_VARIABLE, db.jdbcUrl(),
                            Console.TOKEN_VARIABLE, TOKEN))));
    t.start();
    try {
      long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!out.toString(StandardCharsets.UTF_8).contains("\n") && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      String line = out.toString(StandardCharsets.UTF_8).lines().findFirst().orElse("");
      assertThat(line)
          .as(err.toString(StandardCharsets.UTF_8))
          .matches("flows ui: serving http://127\\.0\\.0\\.1:\\d+/");
      URI uri = URI.create(line.substring("flows ui: serving ".length()));
      HttpResponse<String> page =
          HTTP.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain(TOKEN);
    } finally {
      t.interrupt();
      t.join(10_000);
      PgBinaries.deleteTree(home);
    }
    assertThat(exit.get()).isZero();
  }

  @Test
  void aPortOutOfRangeIsRefusedConfigInvalid() {
    Cli cli = new Cli(Map.of(DatabaseTarget.URL_VARIABLE, db.jdbcUrl()));
    Cli.Result r = cli.run("ui", "--port", "70000");
    assertThat(r.exit()).isEqualTo(Exit.REFUSED);
    assertThat(r.errLines())
        .singleElement()
        .asString()
        .startsWith(
            "error config_invalid: --port must be a whole number from 0 to 65535, not 70000");
  }
}
