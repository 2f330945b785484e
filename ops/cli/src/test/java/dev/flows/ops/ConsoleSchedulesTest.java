package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.Specs;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.schedule.Calendar;
import dev.flows.kernel.schedule.Overlap;
import dev.flows.kernel.schedule.ScheduleChange;
import dev.flows.kernel.schedule.ScheduleDefinition;
import dev.flows.kernel.schedule.ScheduleEntry;
import dev.flows.kernel.schedule.ScheduleRecord;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The console's schedules: the list, a schedule's page, and pause, resume and trigger. */
class ConsoleSchedulesTest {
  private static final String TOKEN = "schedules-token";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
  private static final AtomicReference<Instant> NOW =
      new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

  private static PostgresJournal journal;
  private static Console console;
  private static Console readOnly;

  @BeforeAll
  static void start() {
    TestDatabase.Fresh db = TestDatabase.fresh("console_schedules");
    journal =
        PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(2), NOW::get);
    console =
        Console.start(journal, db.dataSource(), Console.Settings.localhost(0, Optional.of(TOKEN)));
    readOnly =
        Console.start(journal, db.dataSource(), Console.Settings.localhost(0, Optional.empty()));
  }

  @AfterAll
  static void stop() {
    console.close();
    readOnly.close();
    journal.close();
  }

  /**
   * A schedule every second, created at the test clock's now (a whole second), whose first tick
   * started a run and whose second was skipped.
   */
  private static String tickedSchedule(String name) {
    ScheduleDefinition d =
        ScheduleDefinition.of(
                name, "sync-" + name, Calendar.every(Duration.ofSeconds(1), Duration.ZERO))
            .withOverlap(Overlap.SKIP);
    journal.changeSchedule(new ScheduleChange.Create(d, "ops"));
    StartRun template = StartRun.of("template", Specs.run(Specs.llm("a")));
    for (int i = 0; i < 2; i++) {
      NOW.updateAndGet(t -> t.plusSeconds(1));
      journal.takeTicks(name, template, "w1");
    }
    return name;
  }

  private static HttpResponse<String> get(Console c, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(c.uri().resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(
      Console c, String path, String body, Optional<String> bearer, List<String> headers)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(c.uri().resolve(path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    bearer.ifPresent(t -> b.header("Authorization", "Bearer " + t));
    for (int i = 0; i < headers.size(); i += 2) {
      b.header(headers.get(i), headers.get(i + 1));
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static List<ScheduleRecord> entries(String name) {
    return journal.scheduleEntries(name);
  }

  @Test
  void theScheduleListShowsEachScheduleWithItsNextTickAndItsTicksAsPageAndJson() throws Exception {
    Instant created = NOW.get();
    String name = tickedSchedule("list-sync");
    HttpResponse<String> page = get(console, "/schedules");
    assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
    assertThat(page.body())
        .contains("href=\"/schedules/list-sync\"")
        .contains("sync-list-sync")
        .contains("every ");
    assertThat(get(console, "/").body())
        .as("the nav links the schedules")
        .contains("href=\"/schedules\"");
    JsonNode rows = JSON.readTree(get(console, "/api/schedules").body()).path("schedules");
    JsonNode row = null;
    for (JsonNode r : rows) {
      if (r.path("name").asText().equals(name)) {
        row = r;
      }
    }
    assertThat(row).isNotNull();
    assertThat(row.path("ticksStarted").asLong()).isEqualTo(1);
    assertThat(row.path("ticksSkipped").asLong()).isEqualTo(1);
    assertThat(row.path("paused").asBoolean()).isFalse();
    assertThat(row.path("nextTick").asText()).isEqualTo(created.plusSeconds(3).toString());
    assertThat(row.path("lastRun").asText()).startsWith("run_");
  }

  @Test
  void aSchedulesPageShowsItsNextTicksItsRunsAndItsSkippedTicks() throws Exception {
    Instant created = NOW.get();
    String name = tickedSchedule("page-sync");
    String runId =
        entries(name).stream()
            .map(ScheduleRecord::entry)
            .filter(e -> e instanceof ScheduleEntry.TickStarted)
            .map(e -> ((ScheduleEntry.TickStarted) e).runId().value())
            .findFirst()
            .orElseThrow();
    HttpResponse<String> page = get(console, "/schedules/" + name);
    assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
    assertThat(page.body())
        .contains(created.plusSeconds(3).toString(), created.plusSeconds(7).toString())
        .contains("href=\"/runs/" + runId + "\"")
        .contains("<form class=\"action\" method=\"post\" data-action=\"pause\"");
    JsonNode s = JSON.readTree(get(console, "/api/schedules/" + name).body()).path("schedule");
    assertThat(s.path("nextTicks")).hasSize(ConsoleSchedules.NEXT_TICKS);
    assertThat(s.path("runs").findValuesAsText("runId")).containsExactly(runId);
    assertThat(s.path("runs").get(0).path("status").asText()).isEqualTo("running");
    assertThat(s.path("skipped").findValuesAsText("nominal"))
        .containsExactly(created.plusSeconds(2).toString());
    assertThat(s.path("skipped").get(0).path("decision").asText()).isEqualTo("skipped-overlap");
    HttpResponse<String> missing = get(console, "/api/schedules/nope");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(JSON.readTree(missing.body()).path("error").path("code").asText())
        .isEqualTo("schedule_not_found");
  }

  @Test
  void pauseResumeAndTriggerNeedTheTokenAndAreJournaledWithTheActor() throws Exception {
    String name = tickedSchedule("act-sync");
    HttpResponse<String> refused =
        post(console, "/api/schedules/" + name + "/pause", "", Optional.empty(), List.of());
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(journal.schedule(name).orElseThrow().paused()).isFalse();

    HttpResponse<String> paused =
        post(
            console,
            "/api/schedules/" + name + "/pause",
            "reason=maintenance",
            Optional.of(TOKEN),
            List.of());
    assertThat(paused.statusCode()).as(paused.body()).isEqualTo(200);
    assertThat(JSON.readTree(paused.body()).path("changed").asBoolean()).isTrue();
    assertThat(journal.schedule(name).orElseThrow().paused()).isTrue();
    ScheduleRecord last = entries(name).getLast();
    assertThat(last.entry()).isEqualTo(new ScheduleEntry.Paused("maintenance"));
    assertThat(last.by()).isEqualTo("ui:127.0.0.1");

    // A form post from the schedule's page: the session's CSRF token, then a redirect back.
    HttpResponse<String> page = get(console, "/schedules/" + name);
    String cookie = page.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page.body());
    assertThat(csrf.find()).isTrue();
    HttpResponse<String> resumed =
        post(
            console,
            "/schedules/" + name + "/resume",
            "token="
                + URLEncoder.encode(TOKEN, StandardCharsets.UTF_8)
                + "&csrf="
                + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8),
            Optional.empty(),
            List.of("Cookie", cookie));
    assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(303);
    assertThat(resumed.headers().firstValue("Location").orElseThrow())
        .startsWith("/schedules/" + name + "?done=schedule+" + name + "+resumed");
    assertThat(journal.schedule(name).orElseThrow().paused()).isFalse();

    HttpResponse<String> triggered =
        post(console, "/api/schedules/" + name + "/trigger", "", Optional.of(TOKEN), List.of());
    assertThat(triggered.statusCode()).as(triggered.body()).isEqualTo(200);
    assertThat(journal.schedule(name).orElseThrow().pending()).hasSize(1);
    assertThat(entries(name).getLast().by()).isEqualTo("ui:127.0.0.1");

    HttpResponse<String> unknown =
        post(console, "/api/schedules/" + name + "/delete", "", Optional.of(TOKEN), List.of());
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(journal.schedule(name)).isPresent();
  }

  @Test
  void aConsoleWithoutATokenShowsNoScheduleFormsAndRefusesTheActions() throws Exception {
    String name = tickedSchedule("ro-sync");
    HttpResponse<String> page = get(readOnly, "/schedules/" + name);
    assertThat(page.body()).contains("id=\"readonly\"").doesNotContain("<form class=\"action\"");
    HttpResponse<String> refused =
        post(readOnly, "/api/schedules/" + name + "/trigger", "", Optional.of(TOKEN), List.of());
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.body()).contains("ui_read_only");
    assertThat(journal.schedule(name).orElseThrow().pending()).isEmpty();
  }
}
