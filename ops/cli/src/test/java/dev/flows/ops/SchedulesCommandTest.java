package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code flows schedules ...} against a migrated Postgres database of its own per test. */
class SchedulesCommandTest {
  private TestDatabase.Fresh db;
  private PostgresJournal journal;
  private Cli cli;
  private Path home;

  @BeforeEach
  void database() throws Exception {
    db = TestDatabase.fresh("schedules_cli");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(2));
    home = Files.createTempDirectory("flows-home");
    cli =
        new Cli(
            Map.of(
                Session.HOME_VARIABLE, home.toString(), DatabaseTarget.URL_VARIABLE, db.jdbcUrl()),
            OpsConfig.defaults());
  }

  @AfterEach
  void close() {
    journal.close();
    PgBinaries.deleteTree(home);
  }

  @Test
  void aScheduleIsCreatedListedChangedAndDeletedWithEachChangeJournaled() {
    Cli.Result created =
        cli.run(
            "schedules",
            "create",
            "nightly",
            "--flow",
            "reconcile",
            "--cron",
            "30 2 * * *",
            "--zone",
            "Europe/Berlin",
            "--overlap",
            "buffer-one",
            "--input",
            "{\"day\":1}",
            "--json");
    assertThat(created.exit()).as(created.err()).isZero();
    JsonNode s = created.json().get("schedule");
    assertThat(s.get("definition").get("cron").asText()).isEqualTo("30 2 * * *");
    assertThat(s.get("definition").get("overlap").asText()).isEqualTo("buffer-one");
    assertThat(s.get("nextTick").asText()).endsWith(":30:00Z");

    assertThat(cli.run("schedules", "list").out()).contains("nightly  flow reconcile");
    assertThat(cli.run("schedules", "update", "nightly", "--every", "10m", "--json").exit())
        .isZero();
    assertThat(cli.run("schedules", "pause", "nightly", "--reason", "maintenance").exit()).isZero();
    assertThat(cli.run("schedules", "resume", "nightly").exit()).isZero();
    assertThat(cli.run("schedules", "trigger", "nightly").exit()).isZero();
    assertThat(
            cli.run(
                    "schedules",
                    "backfill",
                    "nightly",
                    "--from",
                    "2026-01-01T00:00:00Z",
                    "--to",
                    "2026-01-01T00:30:00Z")
                .exit())
        .isZero();

    JsonNode shown = cli.run("schedules", "show", "nightly", "--json").json();
    assertThat(shown.get("schedule").get("definition").get("every").asText()).isEqualTo("PT10M");
    assertThat(shown.get("schedule").get("pending")).hasSize(5);
    List<String> types = shown.get("entries").findValuesAsText("type");
    assertThat(types)
        .containsExactly(
            "schedule.created",
            "schedule.updated",
            "schedule.paused",
            "schedule.resumed",
            "schedule.ticks.requested",
            "schedule.ticks.requested");
    assertThat(shown.get("entries").get(2).get("reason").asText()).isEqualTo("maintenance");

    assertThat(cli.run("schedules", "delete", "nightly").exit()).isZero();
    assertThat(cli.run("schedules", "list", "--json").json().get("schedules")).isEmpty();
    assertThat(journal.scheduleEntries("nightly").getLast().entry().type())
        .isEqualTo("schedule.deleted");
  }

  @Test
  void excludedCalendarsAreGivenReplacedAndClearedByFlags() {
    Cli.Result created =
        cli.run(
            "schedules",
            "create",
            "weekdays",
            "--flow",
            "reconcile",
            "--cron",
            "0 3 * * *",
            "--exclude",
            "* * * * SAT,SUN",
            "--exclude",
            "2026-12-24..2026-12-26",
            "--json");
    assertThat(created.exit()).as(created.err()).isZero();
    assertThat(created.json().get("schedule").get("definition").get("exclude").toString())
        .isEqualTo("[\"* * * * SAT,SUN\",\"2026-12-24..2026-12-26\"]");

    cli.run("schedules", "update", "weekdays", "--exclude", "2026-12-31");
    assertThat(journal.schedule("weekdays").orElseThrow().definition().exclude())
        .extracting(dev.flows.kernel.schedule.Exclusion::wire)
        .containsExactly("2026-12-31");
    cli.run("schedules", "update", "weekdays", "--clear-exclude");
    assertThat(journal.schedule("weekdays").orElseThrow().definition().exclude()).isEmpty();
    assertThat(
            cli.run("schedules", "update", "weekdays", "--exclude", "2026-12-31..2026-12-01").err())
        .contains("error invalid_input");
  }

  @Test
  void refusalsCarryTheirCodes() {
    assertThat(
            cli.run("schedules", "show", "nope", "--json").json().get("error").get("code").asText())
        .isEqualTo("schedule_not_found");
    assertThat(cli.run("schedules", "create", "a", "--flow", "f", "--cron", "61 * * * *").err())
        .contains("error invalid_input");
    assertThat(cli.run("schedules", "create", "a", "--cron", "0 * * * *").err())
        .contains("error invalid_input: --flow is required");
    cli.run("schedules", "create", "a", "--flow", "f", "--every", "1m");
    Cli.Result again = cli.run("schedules", "create", "a", "--flow", "f", "--every", "2m");
    assertThat(again.exit()).isEqualTo(Exit.REFUSED);
    assertThat(again.err()).contains("error schedule_exists");
    assertThat(cli.run("schedules", "create", "a", "--flow", "f", "--every", "1m").exit())
        .as("the same definition again changes nothing")
        .isZero();
    assertThat(cli.run("schedules", "create", "b", "--flow", "f", "--every", "soon").err())
        .contains("error");
    assertThat(
            cli.run("schedules", "backfill", "a", "--from", "2026-02-01", "--to", "2026-01-01")
                .err())
        .contains("error invalid_input");
  }
}
