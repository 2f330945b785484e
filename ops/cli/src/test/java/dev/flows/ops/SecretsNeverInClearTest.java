package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.JournalStoreConfig;
import dev.flows.journalstore.PostgresJournal;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.keys.SecretKeys;
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
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * A known secret goes through a run on Postgres, as a tool's argument and back as its result,
 * marked secret once in flows.json and once in code: afterwards it is nowhere in a dump of the
 * database, in what the process logged, or in the spans it exported, while the sealed form is in
 * the dump and the body saw the value opened.
 */
class SecretsNeverInClearTest {
  private static final String KEY_VAR = "FLOWS_TEST_SECRET_KEY";
  private static final String SECRET_PROPERTY = "flows.test.secret";

  private static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import com.fasterxml.jackson.databind.node.JsonNodeFactory;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Paying implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("paying").version("1").mcp("marked", "plain").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          // Read where the journal never looks, so only the calls carry it.
          String card = System.getProperty("flows.test.secret");
          String a = f.mcp("marked").tool("echo").call(Map.of("text", card)).text();
          String b =
              f.mcp("plain")
                  .tool("echo")
                  .secret("/text")
                  .secretResult("/content/0/text")
                  .call(Map.of("text", card + "-code"))
                  .text();
          return JsonNodeFactory.instance.objectNode()
              .put("flowsJsonMarks", a.equals(card))
              .put("codeMarks", b.equals(card + "-code"));
        }
      }
      """;

  private final String secret = "card-" + UUID.randomUUID();
  private final Map<String, String> env = new HashMap<>();
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
  private PrintStream err;
  private PrintStream out;
  private OpenTelemetrySdk otel;
  private TestDatabase.Fresh db;
  private PostgresJournal journal;
  private FlowsEngine engine;
  private Path dir;

  @BeforeEach
  void setUp() throws Exception {
    System.setProperty(SECRET_PROPERTY, secret);
    otel =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build();
    FlowsTelemetry.install(otel);
    err = System.err;
    out = System.out;
    System.setErr(new PrintStream(tee(err), true, StandardCharsets.UTF_8));
    System.setOut(new PrintStream(tee(out), true, StandardCharsets.UTF_8));
    db = TestDatabase.fresh("secrets");
    journal = PostgresJournal.connect(JournalStoreConfig.forUrl(db.jdbcUrl()).withPoolSize(8));
    dir = Files.createTempDirectory("secrets");
  }

  @AfterEach
  void tearDown() {
    if (engine != null) {
      engine.close();
    }
    journal.close();
    System.setErr(err);
    System.setOut(out);
    FlowsTelemetry.uninstall();
    otel.close();
    System.clearProperty(SECRET_PROPERTY);
    PgBinaries.deleteTree(dir);
  }

  private OutputStream tee(PrintStream original) {
    return new OutputStream() {
      @Override
      public void write(int b) {
        original.write(b);
        synchronized (logged) {
          logged.write(b);
        }
      }

      @Override
      public void write(byte[] b, int off, int len) {
        original.write(b, off, len);
        synchronized (logged) {
          logged.write(b, off, len);
        }
      }
    };
  }

  private FlowsEngine engine() {
    McpCredentials credentials =
        new McpCredentials(
            n -> env.containsKey(n) ? env.get(n) : System.getenv(n), Map.of(), Map.of(), Map.of());
    return new FlowsEngine(
        journal,
        WorkerConfig.defaults().toBuilder()
            .pollInterval(Duration.ofMillis(100))
            .stopGrace(Duration.ofSeconds(1))
            .build(),
        SdkConfig.DEFAULTS,
        McpClientConfig.DEFAULTS,
        credentials,
        InstantSource.system(),
        new WorkerId("secrets-" + UUID.randomUUID()));
  }

  private LoadedFlow flow() throws Exception {
    JsonNode s = McpServerConfigJson.write(Jvm.stdioServer("tools", List.of(), Map.of()));
    String server = "{\"command\": " + s.path("command") + ", \"args\": " + s.path("args");
    Files.writeString(dir.resolve("paying.flow.java"), FLOW);
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"secrets\": {\"keyEnv\": \""
            + KEY_VAR
            + "\"}, \"mcp\": {\"marked\": "
            + server
            + ", \"secrets\": {\"echo\": {\"arguments\": [\"/text\"], \"result\":"
            + " [\"/content/0/text\"]}}}, \"plain\": "
            + server
            + "}}}");
    return LoadedFlow.load(dir.resolve("paying.flow.java").toString(), dir);
  }

  private RunSnapshot run() throws Exception {
    engine = engine();
    RunRef root =
        engine.start(flow(), JsonNodeFactory.instance.objectNode(), Optional.empty()).runId();
    engine.startWorker();
    long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(root).orElseThrow();
      if (s.status().terminal()) {
        return s;
      }
      journal.awaitWork(Duration.ofMillis(200));
    }
    throw new AssertionError("run did not end: " + journal.run(root));
  }

  private static String key() {
    byte[] k = new byte[32];
    new java.security.SecureRandom().nextBytes(k);
    return Base64.getEncoder().encodeToString(k);
  }

  @Test
  void aSecretArgumentAndResultAreNowhereInTheDatabaseDumpTheLogsOrTheSpans() throws Exception {
    env.put(KEY_VAR, key());
    RunSnapshot done = run();

    assertThat(done.status()).isEqualTo(RunStatus.SUCCEEDED);
    JsonNode output = done.steps().getFirst().output().orElseThrow();
    assertThat(output.path("flowsJsonMarks").asBoolean()).as("the body saw it opened").isTrue();
    assertThat(output.path("codeMarks").asBoolean()).isTrue();
    String dump = dump();
    assertThat(dump).as("the sealed values are journaled").contains(SecretKeys.PREFIX);
    assertThat(dump).doesNotContain(secret);
    assertThat(spans.getFinishedSpanItems()).isNotEmpty();
    assertThat(spans.getFinishedSpanItems()).noneMatch(sp -> spanText(sp).contains(secret));
    synchronized (logged) {
      assertThat(logged.toString(StandardCharsets.UTF_8)).doesNotContain(secret);
    }
    // What `runs show`, the console and /api read shows "***" in the sealed values' place.
    String shown = RunJson.tree(journal, done, 0).toString();
    assertThat(shown).contains("\"***\"").doesNotContain(secret).doesNotContain(SecretKeys.PREFIX);
  }

  @Test
  void aRunWhoseSecretKeyIsMissingFailsSecretKeyMissingAndWritesNothingInClear() throws Exception {
    RunSnapshot done = run();

    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    assertThat(RunJson.failure(journal, done).orElseThrow().toString())
        .contains("secret_key_missing")
        .contains(KEY_VAR);
    assertThat(journal.children(done.runId())).as("no call was admitted").isEmpty();
    assertThat(dump()).doesNotContain(secret);
    synchronized (logged) {
      assertThat(logged.toString(StandardCharsets.UTF_8)).doesNotContain(secret);
    }
  }

  private static String spanText(SpanData s) {
    return s.getName() + s.getAttributes() + s.getEvents() + s.getStatus();
  }

  /**
   * The database as a backup holds it: {@code pg_dump} when one at least as new as the server is on
   * the path; else what its data section is, every table's rows through {@code COPY ... TO STDOUT},
   * and the definitions of the database's own functions.
   */
  private String dump() throws Exception {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl())) {
      int server = c.getMetaData().getDatabaseMajorVersion();
      Optional<String> pgDump = pgDump(server, c);
      if (pgDump.isPresent()) {
        return pgDump.get();
      }
      StringWriter all = new StringWriter();
      List<String> tables = new ArrayList<>();
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT format('%I.%I', schemaname, tablename) FROM pg_tables"
                      + " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
      assertThat(tables).as("the journal's tables").isNotEmpty();
      for (String t : tables) {
        ByteArrayOutputStream rows = new ByteArrayOutputStream();
        c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY " + t + " TO STDOUT", rows);
        all.append(t).append('\n').append(rows.toString(StandardCharsets.UTF_8));
      }
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                      + " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')")) {
        while (rs.next()) {
          all.append(rs.getString(1)).append('\n');
        }
      }
      return all.toString();
    }
  }

  private Optional<String> pgDump(int serverMajor, Connection c) throws Exception {
    Process version;
    try {
      version = new ProcessBuilder("pg_dump", "--version").redirectErrorStream(true).start();
    } catch (java.io.IOException none) {
      return Optional.empty();
    }
    String v = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    version.waitFor(10, TimeUnit.SECONDS);
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)\\.").matcher(v);
    if (!m.find() || Integer.parseInt(m.group(1)) < serverMajor) {
      return Optional.empty(); // an older pg_dump refuses a newer server
    }
    URI u = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    Map<String, String> q = new HashMap<>();
    if (u.getRawQuery() != null) {
      for (String kv : u.getRawQuery().split("&")) {
        String[] p = kv.split("=", 2);
        q.put(p[0], p.length > 1 ? java.net.URLDecoder.decode(p[1], StandardCharsets.UTF_8) : "");
      }
    }
    ProcessBuilder pb =
        new ProcessBuilder(
            "pg_dump",
            "--host=" + u.getHost(),
            "--port=" + u.getPort(),
            "--username=" + q.getOrDefault("user", "postgres"),
            "--no-password",
            u.getPath().substring(1));
    q.computeIfPresent("password", (k, pw) -> pb.environment().put("PGPASSWORD", pw));
    Process p = pb.redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String dump = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("pg_dump").isZero();
    return Optional.of(dump);
  }
}
