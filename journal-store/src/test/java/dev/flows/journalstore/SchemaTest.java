package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.journal.Queues;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.Signals;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.lifecycle.RunTransition;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.kernel.lifecycle.StepTransition;
import dev.flows.kernel.spec.StepKind;
import dev.flows.migrations.Migrations;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The schema itself refuses illegal states, whatever code talks to it. */
class SchemaTest {
  private static TestDatabase.Fresh db;

  @BeforeAll
  static void database() {
    db = TestDatabase.fresh("schema");
  }

  @Test
  void theDatabaseStepTransitionsAreExactlyTheKernelTable() throws SQLException {
    List<String> db =
        strings(
            "SELECT name || ':' || from_status || '->' || to_status FROM flows.step_transitions");
    List<String> kernel =
        Arrays.stream(StepTransition.values())
            .map(t -> t.name() + ":" + t.from().wire() + "->" + t.to().wire())
            .toList();
    assertThat(db).containsExactlyInAnyOrderElementsOf(kernel);
  }

  @Test
  void theDatabaseRunTransitionsAreExactlyTheKernelTable() throws SQLException {
    List<String> db =
        strings(
            "SELECT name || ':' || coalesce(from_status::text, '-') || '->' || to_status"
                + " FROM flows.run_transitions");
    List<String> kernel =
        Arrays.stream(RunTransition.values())
            .map(
                t ->
                    t.name()
                        + ":"
                        + t.from().map(RunStatus::wire).orElse("-")
                        + "->"
                        + t.to().wire())
            .toList();
    assertThat(db).containsExactlyInAnyOrderElementsOf(kernel);
  }

  @Test
  void theDatabaseEnumsSpellTheKernelWireNames() throws SQLException {
    assertThat(strings("SELECT unnest(enum_range(NULL::flows.step_status))::text"))
        .containsExactlyElementsOf(
            Arrays.stream(StepStatus.values()).map(StepStatus::wire).toList());
    assertThat(strings("SELECT unnest(enum_range(NULL::flows.run_status))::text"))
        .containsExactlyElementsOf(Arrays.stream(RunStatus.values()).map(RunStatus::wire).toList());
    assertThat(strings("SELECT unnest(enum_range(NULL::flows.step_kind))::text"))
        .containsExactlyElementsOf(Arrays.stream(StepKind.values()).map(StepKind::wire).toList());
    assertThat(strings("SELECT unnest(enum_range(NULL::flows.completion_reason))::text"))
        .containsExactlyElementsOf(
            Arrays.stream(dev.flows.kernel.journal.CompletionReason.values())
                .map(dev.flows.kernel.journal.CompletionReason::wire)
                .toList());
    assertThat(strings("SELECT unnest(enum_range(NULL::flows.disposition))::text"))
        .containsExactlyElementsOf(
            Arrays.stream(dev.flows.kernel.journal.Disposition.values())
                .map(dev.flows.kernel.journal.Disposition::wire)
                .toList());
    assertThat(strings("SELECT unnest(enum_range(NULL::flows.run_completion_reason))::text"))
        .containsExactlyElementsOf(
            Arrays.stream(dev.flows.kernel.journal.RunCompletionReason.values())
                .map(dev.flows.kernel.journal.RunCompletionReason::wire)
                .toList());
  }

  @Test
  void aFreshDatabaseHasNoPendingMigration() {
    assertThat(Migrations.of(db.dataSource()).pending()).isEmpty();
  }

  @Test
  void anEmptyDatabaseReportsTheSchemaAsPendingUntilMigrated() {
    TestDatabase.Fresh empty = TestDatabase.empty("unmigrated");
    Migrations m = Migrations.of(empty.dataSource());
    assertThat(m.pending())
        .containsExactly(
            "1 flows schema",
            "2 step routes",
            "4 inline effects",
            "5 cheaper step checks",
            "6 inline end without notify",
            "7 suspended bodies",
            "8 journal without attempt index",
            "9 cheaper inline calls",
            "10 one trip success",
            "11 journal functions repeatable",
            "12 rerun of",
            "13 effect election order",
            "14 queues and wait notes",
            "15 retention",
            "16 signals",
            "17 claimed admission",
            "18 durable input",
            "19 task backed calls",
            "20 cheaper admissions",
            "21 schedules",
            "22 runs list at scale",
            "25 schedules overview for a console",
            "27 run upgraded",
            "28 output stored once",
            "30 workers and versions",
            "31 console at scale",
            "33 live text",
            "36 thinner one step admission",
            "37 unknown outcome parks",
            "journal functions (repeatable)");
    assertThat(m.migrate()).isEqualTo(30);
    assertThat(m.pending()).isEmpty();
    assertThat(m.migrate()).isZero();
  }

  @Test
  void everyFunctionOfTheSchemaIsDefinedOnceByTheRepeatableMigration() throws Exception {
    List<String> defined = new ArrayList<>();
    Matcher m = CREATE_FUNCTION.matcher(migration("R__journal_functions.sql"));
    while (m.find()) {
      defined.add(m.group(1));
    }
    assertThat(defined).doesNotHaveDuplicates();
    // Every overload counts: a signature left behind by a change would show here twice.
    assertThat(
            strings(
                "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                    + " WHERE n.nspname = 'flows'"))
        .containsExactlyInAnyOrderElementsOf(defined);
  }

  @Test
  void noVersionedMigrationAfterTheRepeatableOneDefinesAFunction() throws Exception {
    MigrationInfo[] all =
        Flyway.configure()
            .dataSource(db.dataSource())
            .schemas(Migrations.SCHEMA)
            .defaultSchema(Migrations.SCHEMA)
            .locations("classpath:db/migration")
            .load()
            .info()
            .all();
    List<String> later = new ArrayList<>();
    for (MigrationInfo info : all) {
      if (info.getVersion() != null
          && info.getVersion().isNewerThan(LAST_VERSION_WITH_FUNCTIONS)
          && CREATE_FUNCTION.matcher(migration(info.getScript())).find()) {
        later.add(info.getScript());
      }
    }
    assertThat(later).as("versioned migrations that define functions").isEmpty();
  }

  /** Applied migrations up to this version are history and keep the functions they created. */
  private static final String LAST_VERSION_WITH_FUNCTIONS = "10";

  private static final Pattern CREATE_FUNCTION =
      Pattern.compile("CREATE (?:OR REPLACE )?FUNCTION flows\\.(\\w+)\\(");

  private static String migration(String script) throws IOException {
    try (InputStream in =
        SchemaTest.class.getClassLoader().getResourceAsStream("db/migration/" + script)) {
      assertThat(in).as(script).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void anUndeclaredStepTransitionIsRefusedByTheDatabase() throws SQLException {
    exec(
        "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash, created_by,"
            + " created_at) VALUES ('r1', 'n', 'running', 'k1', '{}', 'h', 't', now())");
    exec(
        "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
            + " max_iterations, spec, route, not_before, updated_at)"
            + " VALUES ('r1', 'a', 0, 'llm', 'waiting', '{}', 1, '{}', 'llm', now(), now())");
    assertThatThrownBy(
            () -> exec("UPDATE flows.steps SET status = 'succeeded' WHERE step_id = 'a'"))
        .hasMessageContaining("undeclared step transition waiting -> succeeded");
    exec("UPDATE flows.steps SET status = 'ready' WHERE step_id = 'a'");
    assertThatThrownBy(() -> exec("UPDATE flows.steps SET status = 'running' WHERE step_id = 'a'"))
        .as("a running step without a lease")
        .hasMessageContaining("steps_lease_iff_running");
    assertThatThrownBy(() -> exec("UPDATE flows.runs SET status = 'succeeded' WHERE run_id = 'r1'"))
        .as("a terminal run without completion time")
        .hasMessageContaining("runs_completed_iff_terminal");
    assertThatThrownBy(() -> exec("DELETE FROM flows.steps"))
        .hasMessageContaining("DELETE refused for run r1");
  }

  @Test
  void aFlowBodysInstructionMayNameAnotherVersionOfItsFlowAndNothingElseOfItsSpecMayChange()
      throws SQLException {
    exec(
        "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash, created_by,"
            + " created_at) VALUES ('r9', 'n', 'running', 'k9', '{}', 'h', 't', now())");
    exec(
        "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
            + " max_iterations, spec, route, not_before, updated_at)"
            + " VALUES ('r9', 'body', 0, 'agent', 'ready', '{}', 1, '{\"input\": 1, \"agent\":"
            + " {\"instruction\": {\"type\": \"flow\", \"flow\": \"t\", \"version\": \"1\"}}}',"
            + " 'flow:t@1', now(), now())");
    for (String spec :
        List.of(
            "{\"input\": 1, \"agent\": {\"instruction\": {\"type\": \"flow\", \"flow\":"
                + " \"u\", \"version\": \"2\"}}}",
            "{\"input\": 2, \"agent\": {\"instruction\": {\"type\": \"flow\", \"flow\":"
                + " \"t\", \"version\": \"2\"}}}",
            "{\"input\": 1, \"agent\": {\"instruction\": {\"type\": \"mcp\"}}}",
            "{\"input\": 1, \"agent\": {\"instruction\": {\"flow\": \"t\"}}}")) {
      assertThatThrownBy(
              () -> exec("UPDATE flows.steps SET spec = '" + spec + "' WHERE run_id = 'r9'"), spec)
          .hasMessageContaining("identity and spec of r9/body are immutable");
    }
    exec(
        "UPDATE flows.steps SET route = 'flow:t@2', spec = '{\"input\": 1, \"agent\":"
            + " {\"instruction\": {\"type\": \"flow\", \"flow\": \"t\", \"version\":"
            + " \"2\"}}}' WHERE run_id = 'r9'");
    assertThat(
            strings(
                "SELECT spec #>> '{agent,instruction,version}' FROM flows.steps"
                    + " WHERE run_id = 'r9'"))
        .containsExactly("2");
  }

  @Test
  void aStepsIdentityAndSpecCannotChangeWhateverElseTheUpdateSets() throws SQLException {
    exec(
        "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash, created_by,"
            + " created_at) VALUES ('r3', 'n', 'running', 'k3', '{}', 'h', 't', now())");
    exec(
        "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
            + " max_iterations, spec, route, not_before, updated_at)"
            + " VALUES ('r3', 'a', 0, 'llm', 'waiting', '{}', 1, '{\"v\": 1}', 'llm', now(),"
            + " now())");
    for (String set :
        List.of(
            "spec = '{\"v\": 2}'",
            "kind = 'agent'",
            "position = 1",
            "step_id = 'b'",
            "status = 'ready', spec = '{\"v\": 2}'")) {
      assertThatThrownBy(() -> exec("UPDATE flows.steps SET " + set + " WHERE run_id = 'r3'"), set)
          .hasMessageContaining("identity and spec of r3/a are immutable");
    }
    // Setting the spec to what it is, or not naming it, passes.
    exec("UPDATE flows.steps SET spec = spec, status = 'ready' WHERE run_id = 'r3'");
    assertThat(strings("SELECT status || ' ' || spec::text FROM flows.steps WHERE run_id = 'r3'"))
        .containsExactly("ready {\"v\": 1}");
  }

  @Test
  void suspensionsNeverExceedAttemptsAndOnlyAChildRunCanWakeAParent() throws SQLException {
    exec(
        "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash, created_by,"
            + " created_at) VALUES ('r4', 'n', 'running', 'k4', '{}', 'h', 't', now())");
    exec(
        "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
            + " max_iterations, spec, route, not_before, updated_at)"
            + " VALUES ('r4', 'a', 0, 'llm', 'ready', '{}', 1, '{}', 'llm', now(), now())");
    assertThatThrownBy(() -> exec("UPDATE flows.steps SET suspensions = 1 WHERE run_id = 'r4'"))
        .hasMessageContaining("steps_suspensions_within_attempts");
    assertThatThrownBy(() -> exec("UPDATE flows.runs SET wakes_parent = true WHERE run_id = 'r4'"))
        .hasMessageContaining("runs_wakes_only_a_parent");
  }

  @Test
  void aStepCannotBeCreatedRunning() throws SQLException {
    exec(
        "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash, created_by,"
            + " created_at) VALUES ('r2', 'n', 'running', 'k2', '{}', 'h', 't', now())");
    assertThatThrownBy(
            () ->
                exec(
                    "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
                        + " max_iterations, spec, route, attempts, lease_id, lease_deadline,"
                        + " lease_ms, worker_id, not_before, updated_at) VALUES ('r2', 'a', 0,"
                        + " 'llm', 'running', '{}', 1, '{}', 'llm', 1, 'l', now(), 10, 'w', now(),"
                        + " now())"))
        .hasMessageContaining("created waiting or ready");
  }

  @Test
  void onlyTheTransactionThatCreatesARunMayCreateItsStepRunningWithItsFirstAttempt()
      throws SQLException {
    String run =
        "INSERT INTO flows.runs (run_id, name, status, admission_key, spec, spec_hash, created_by,"
            + " created_at) VALUES ('%s', 'n', 'running', 'k-%s', '{}', 'h', 't', now())";
    String runningStep =
        "INSERT INTO flows.steps (run_id, step_id, position, kind, status, depends_on,"
            + " max_iterations, spec, route, attempts, lease_id, lease_deadline, lease_ms,"
            + " worker_id, not_before, updated_at) VALUES ('%s', 'a', 0, 'agent', 'running',"
            + " '{}', 1, '{}', 'mcp', %d, 'l', now(), 10, 'w', now(), now())";
    inOneTransaction(run.formatted("r5", "r5"), runningStep.formatted("r5", 1));
    assertThat(strings("SELECT status || ' ' || attempts FROM flows.steps WHERE run_id = 'r5'"))
        .containsExactly("running 1");
    assertThatThrownBy(
            () -> inOneTransaction(run.formatted("r6", "r6"), runningStep.formatted("r6", 2)))
        .as("not with a later attempt")
        .hasMessageContaining("created waiting or ready");
    exec(run.formatted("r7", "r7"));
    assertThatThrownBy(() -> exec(runningStep.formatted("r7", 1)))
        .as("not for a run another transaction created")
        .hasMessageContaining("created waiting or ready");
    assertThat(strings("SELECT run_id FROM flows.runs WHERE run_id IN ('r6', 'r7')"))
        .containsExactly("r7");
  }

  private static void inOneTransaction(String... statements) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl())) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        for (String sql : statements) {
          st.execute(sql);
        }
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      }
    }
  }

  @Test
  void theDatabasesShapeChecksAcceptExactlyWhatTheKernelAccepts() throws SQLException {
    List<String> samples =
        List.of(
            "a",
            "run_0123456789abcdef",
            "a:b.c_d-e",
            "A".repeat(100),
            "A".repeat(101),
            "A".repeat(200),
            "A".repeat(201),
            "-a",
            "_a",
            ".a",
            "a b",
            "a\nb",
            "a/b",
            "é",
            "aé",
            "",
            "a".repeat(64),
            "0123456789abcdef".repeat(4),
            "0123456789abcdef".repeat(4) + "0",
            "0123456789ABCDEF".repeat(4),
            "0123456789abcdeg".repeat(4),
            "0123456789abcdef".repeat(4).substring(1));
    Pattern idempotencyKey = Pattern.compile("[0-9a-f]{64}");
    for (String s : samples) {
      assertThat(check("runs_run_id_check", "run_id", s)).as("run id %s", s).isEqualTo(runId(s));
      assertThat(check("runs_queue_name", "queue", s)).as("queue %s", s).isEqualTo(Queues.valid(s));
      assertThat(check("signal_mailbox_name_check", "name", s))
          .as("signal name %s", s)
          .isEqualTo(signalName(s));
      assertThat(check("effect_elections_idempotency_key_check", "idempotency_key", s))
          .as("idempotency key %s", s)
          .isEqualTo(idempotencyKey.matcher(s).matches());
    }
  }

  private static boolean runId(String s) {
    try {
      new RunRef(s);
      return true;
    } catch (FlowsException e) {
      return false;
    }
  }

  private static boolean signalName(String s) {
    try {
      Signals.check(s, Optional.empty());
      return true;
    } catch (FlowsException e) {
      return false;
    }
  }

  /**
   * Whether the CHECK constraint {@code name} holds for a row whose {@code column} is {@code v}.
   */
  private static boolean check(String name, String column, String v) throws SQLException {
    String expr =
        strings(
                "SELECT pg_get_expr(conbin, conrelid) FROM pg_constraint WHERE conname = '"
                    + name
                    + "'")
            .getFirst();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        var ps =
            c.prepareStatement(
                "SELECT coalesce("
                    + expr
                    + ", true) FROM (SELECT CAST(? AS text) AS "
                    + column
                    + ") t")) {
      ps.setString(1, v);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  private static void exec(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private static List<String> strings(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }
}
