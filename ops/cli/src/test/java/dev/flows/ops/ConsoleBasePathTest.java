package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunStatus;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The console served under a base path, as a service mounts it: nothing escapes the prefix. */
class ConsoleBasePathTest {
  private static final String TOKEN = "base-path-token";
  private static final Pattern URL_ATTRIBUTE =
      Pattern.compile("(?<![\\w-])(?:href|src|action)=\"([^\"#][^\"]*)\"");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

  private static PostgresJournal journal;
  private static ConsoleWorkload work;
  private static Console console;

  @BeforeAll
  static void start() {
    TestDatabase.Fresh db = TestDatabase.fresh("console_base");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(2));
    work = new ConsoleWorkload(journal);
    console =
        Console.start(
            journal,
            db.dataSource(),
            Console.Settings.localhost(0, Optional.of(TOKEN)).withBasePath("/flows/"));
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

  /** Every URL of a page's links, sources and form actions. */
  private static List<String> urls(String page) {
    List<String> urls = new ArrayList<>();
    Matcher m = URL_ATTRIBUTE.matcher(page);
    while (m.find()) {
      urls.add(m.group(1));
    }
    return urls;
  }

  @Test
  void theConsoleAnswersUnderItsBasePathAndEveryLinkStaysInsideIt() throws Exception {
    RunRef run = work.failed("base-path-list", "boom");
    assertThat(console.uri().getPath()).isEqualTo("/flows/");
    HttpResponse<String> list = get("/flows/");
    assertThat(list.statusCode()).isEqualTo(200);
    assertThat(list.body()).contains("href=\"/flows/runs/" + run.value() + "\"");
    HttpResponse<String> detail = get("/flows/runs/" + run.value());
    assertThat(detail.statusCode()).as(detail.body()).isEqualTo(200);
    assertThat(detail.body()).contains(run.value());
    for (HttpResponse<String> page : List.of(list, detail, get("/flows/runs/nope"))) {
      assertThat(urls(page.body()))
          .isNotEmpty()
          .allSatisfy(u -> assertThat(u).startsWith("/flows/"));
    }
    assertThat(get("/").statusCode()).as("nothing is served outside the prefix").isEqualTo(404);
    assertThat(get("/runs/" + run.value()).statusCode()).isEqualTo(404);
    assertThat(
            get("/flows/api/runs/" + run.value())
                .body()
                .contains("\"runId\":\"" + run.value() + "\""))
        .isTrue();
  }

  @Test
  void aLongRunsTimelineFetchesItsLaterItemsUnderTheBasePath() throws Exception {
    RunRef run = work.manyMemos("base-path-long", 150);
    HttpResponse<String> page = get("/flows/runs/" + run.value());
    assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
    Matcher details = Pattern.compile("data-detail=\"([^\"]*)\"").matcher(page.body());
    List<String> urls = new ArrayList<>();
    while (details.find()) {
      urls.add(details.group(1));
    }
    assertThat(urls).isNotEmpty().allSatisfy(u -> assertThat(u).startsWith("/flows/runs/"));
    HttpResponse<String> item = get(urls.getLast());
    assertThat(item.statusCode()).as(item.body()).isEqualTo(200);
  }

  @Test
  void theStaticAssetsAreServedUnderTheBasePath() throws Exception {
    for (String asset : List.of("static/console.js", "static/console.css")) {
      HttpResponse<String> r = get("/flows/" + asset);
      assertThat(r.statusCode()).as(asset).isEqualTo(200);
      assertThat(r.body()).isNotBlank();
    }
    assertThat(urls(get("/flows/").body()))
        .contains("/flows/static/console.js", "/flows/static/console.css");
  }

  @Test
  void aFormActionUnderTheBasePathActsAndRedirectsInsideIt() throws Exception {
    RunRef failed = work.failed("base-path-resume", "boom");
    HttpResponse<String> page = get("/flows/runs/" + failed.value());
    String setCookie = page.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(setCookie).contains("Path=/flows/");
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page.body());
    assertThat(csrf.find()).isTrue();
    String action = "/flows/runs/" + failed.value() + "/resume";
    assertThat(urls(page.body())).contains(action);
    String body =
        "token="
            + URLEncoder.encode(TOKEN, StandardCharsets.UTF_8)
            + "&csrf="
            + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);
    URI target = console.uri().resolve(action);
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(target)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Cookie", setCookie.split(";")[0])
                .header("Origin", target.getScheme() + "://" + target.getAuthority())
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(303);
    assertThat(r.headers().firstValue("Location").orElseThrow())
        .startsWith("/flows/runs/" + failed.value() + "?done=");
    assertThat(journal.run(failed).orElseThrow().status()).isNotEqualTo(RunStatus.FAILED);
  }

  @Test
  void aBasePathThatIsNotAPathIsRefusedConfigInvalid() {
    assertThat(Console.Settings.localhost(0, Optional.empty()).withBasePath("/").basePath())
        .isEmpty();
    assertThat(Console.Settings.localhost(0, Optional.empty()).withBasePath("ops/flows").basePath())
        .isEqualTo("/ops/flows");
    for (String bad : List.of("/a b", "/x?y", "//flows", "/a/../b", "/flows\"")) {
      assertThatThrownBy(
              () -> Console.Settings.localhost(0, Optional.empty()).withBasePath(bad), bad)
          .isInstanceOfSatisfying(
              FlowsException.class, e -> assertThat(e.code().wire()).isEqualTo("config_invalid"));
    }
  }
}
