package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.RunRef;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A password given in any form a database can be named in never reaches what flows prints: every
 * command, in text and JSON, against a database that answers and one that does not, and the log of
 * a worker process.
 */
class PasswordRedactionTest {
  private static final String MARKER = "S3cr3tMarker";
  private static final String ROLE = "flows_marker";

  /** One way of naming a database with a password. */
  record Form(String name, List<String> dbOption, Map<String, String> env) {}

  @TempDir static Path dir;
  private static TestDatabase.Fresh db;
  private static String hostPort;
  private static String database;
  private static Path flow;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("redaction");
    URI u = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    hostPort = u.getHost() + ":" + u.getPort();
    database = u.getPath().substring(1);
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement st = c.createStatement()) {
      st.execute(
          "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '"
              + ROLE
              + "') THEN CREATE ROLE "
              + ROLE
              + " LOGIN SUPERUSER PASSWORD '"
              + MARKER
              + "'; END IF; END $$");
    }
    flow = Files.writeString(dir.resolve("quick.flow.java"), DatabaseRestartLauncherIT.FLOW);
    Files.writeString(dir.resolve("flows.json"), "{\"mcp\": {}}");
  }

  static List<Form> forms(String hostPort, String database) {
    String plain = "jdbc:postgresql://" + hostPort + "/" + database;
    String jdbc = plain + "?user=" + ROLE + "&password=" + MARKER;
    String userInfo = ROLE + ":" + MARKER + "@" + hostPort + "/" + database;
    return List.of(
        new Form("jdbc password parameter", List.of("--db", jdbc), Map.of()),
        new Form("postgres://", List.of("--db", "postgres://" + userInfo), Map.of()),
        new Form("postgresql://", List.of("--db=postgresql://" + userInfo), Map.of()),
        new Form(
            "PGPASSWORD", List.of("--db", plain), Map.of("PGUSER", ROLE, "PGPASSWORD", MARKER)),
        new Form("FLOWS_DATABASE_URL", List.of(), Map.of(DatabaseTarget.URL_VARIABLE, jdbc)));
  }

  private static Cli cli(Form form) {
    Map<String, String> env = new HashMap<>(form.env());
    env.put(Session.HOME_VARIABLE, dir.resolve("home").toString());
    return new Cli(env);
  }

  private static String[] args(Form form, String... command) {
    List<String> all = new ArrayList<>(form.dbOption());
    all.addAll(List.of(command));
    return all.toArray(String[]::new);
  }

  /**
   * Every command on {@code run}, as text and as JSON, and with {@code offline} those that touch no
   * database (they still parse it); answers everything printed.
   */
  private static List<Cli.Result> everyCommand(Form form, String run, boolean offline) {
    List<String[]> commands =
        new ArrayList<>(
            List.of(
                new String[] {"db", "status"},
                new String[] {"db", "start"},
                new String[] {"db", "stop"},
                new String[] {"db", "migrate"},
                new String[] {"runs", "list"},
                new String[] {"runs", "show", run},
                new String[] {"runs", "watch", run},
                new String[] {"runs", "cancel", run},
                new String[] {"runs", "resume", run},
                new String[] {"runs", "resolve", run, "body", "--performed", "{}"},
                new String[] {"nope"}));
    if (offline) {
      commands.add(new String[] {"mcp", "tools", "--dir", dir.toString()});
      commands.add(new String[] {"check", flow.toString()});
    }
    List<Cli.Result> printed = new ArrayList<>();
    for (String[] command : commands) {
      printed.add(cli(form).run(args(form, command)));
      List<String> json = new ArrayList<>(List.of(command));
      json.add("--json");
      printed.add(cli(form).run(args(form, json.toArray(String[]::new))));
    }
    return printed;
  }

  @Test
  void noCommandPrintsThePasswordOfADatabaseThatAnswers() throws Exception {
    List<Form> forms = forms(hostPort, database);
    Cli.Result ended =
        cli(forms.getFirst()).run(args(forms.getFirst(), "run", flow.toString(), "--json"));
    assertThat(ended.exit()).as(ended.err()).isZero();
    String run = ended.jsonLines().getFirst().path("run").asText();
    for (Form form : forms) {
      List<Cli.Result> printed = new ArrayList<>(List.of(ended));
      Cli.Result detached = cli(form).run(args(form, "run", flow.toString(), "--detach"));
      assertThat(detached.exit()).as(form.name() + ": " + detached.err()).isZero();
      printed.add(detached);
      printed.add(cli(form).run(args(form, "run", flow.toString(), "--detach", "--json")));
      printed.addAll(everyCommand(form, run, false));
      assertNoMarker(form, printed);

      Cli.Result status = cli(form).run(args(form, "db", "status", "--json"));
      assertThat(status.exit()).as(form.name() + ": " + status.err()).isZero();
      assertThat(status.json().path("database").path("jdbcUrl").asText())
          .startsWith("jdbc:postgresql://" + hostPort + "/" + database);
      String worker = workerOutput(form);
      assertThat(worker).as(form.name()).contains("ready").doesNotContain(MARKER);
    }
  }

  @Test
  void noCommandPrintsThePasswordOfADatabaseThatDoesNotAnswer() throws Exception {
    String nowhere;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nowhere = "127.0.0.1:" + s.getLocalPort();
    }
    for (Form form : forms(nowhere, "flows")) {
      List<Cli.Result> printed = new ArrayList<>();
      printed.add(cli(form).run(args(form, "run", flow.toString(), "--json")));
      printed.addAll(everyCommand(form, RunRef.random().value(), true));
      assertNoMarker(form, printed);
      Cli.Result status = cli(form).run(args(form, "db", "status"));
      assertThat(status.err()).as(form.name()).startsWith("error database_unavailable: ");
      assertThat(workerOutput(form)).as(form.name()).doesNotContain(MARKER);
    }
  }

  @Test
  void aPasswordParameterIsShownMaskedWhereTheUrlIsShown() {
    Form jdbc = forms(hostPort, database).getFirst();
    Cli.Result status = cli(jdbc).run(args(jdbc, "db", "status", "--json"));
    assertThat(status.json().path("database").path("jdbcUrl").asText())
        .endsWith("?user=" + ROLE + "&password=***");
    Cli.Result stop = cli(jdbc).run(args(jdbc, "db", "stop"));
    assertThat(stop.err()).contains("password=***").doesNotContain(MARKER);
  }

  @Test
  void startNamesTheUrlOnceAndStatusPrintsAPsqlCommandWithoutThePassword() {
    for (Form form : forms(hostPort, database)) {
      Cli.Result start = cli(form).run(args(form, "db", "start"));
      assertThat(start.exit()).as(start.err()).isZero();
      assertThat(start.out().split("jdbc:postgresql://", -1)).as(start.out()).hasSize(2);
      Cli.Result status = cli(form).run(args(form, "db", "status"));
      assertThat(status.out().lines().map(String::strip))
          .as(form.name())
          .contains("psql: psql 'postgresql://" + ROLE + "@" + hostPort + "/" + database + "'");
    }
  }

  private static void assertNoMarker(Form form, List<Cli.Result> printed) {
    assertThat(printed)
        .as(form.name())
        .allSatisfy(r -> assertThat(r.out() + r.err()).doesNotContain(MARKER));
  }

  /** What a worker process printed until it was ready (or refused), then stopped. */
  private static String workerOutput(Form form) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(FlowsCli.class.getName());
    cmd.addAll(List.of(args(form, "worker")));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().remove(DatabaseTarget.URL_VARIABLE);
    pb.environment().remove("PGPASSWORD");
    pb.environment().remove("PGUSER");
    pb.environment().putAll(form.env());
    pb.environment().put(Session.HOME_VARIABLE, dir.resolve("home").toString());
    pb.directory(new File(System.getProperty("user.dir")));
    Path log = Files.createTempFile(dir, "worker", ".log");
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    Process p = pb.start();
    try {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (p.isAlive() && !read(log).contains("ready") && System.nanoTime() < until) {
        Thread.sleep(100);
      }
    } finally {
      ProcessTree.stop(p);
    }
    return read(log);
  }

  private static String read(Path log) throws IOException {
    return Files.readString(log, StandardCharsets.UTF_8);
  }
}
