package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped typed example, {@code flows-examples/flows/expense.flow.java} (a record in, a record
 * out, a typed step and a typed signal), runs through {@code flows run} as any flow does, and
 * {@code runs show --json} shows it in the shape every run has.
 */
class TypedExampleCliTest {
  private static final Path EXPENSE =
      Path.of("../..")
          .toAbsolutePath()
          .normalize()
          .resolve("flows-examples/flows/expense.flow.java");

  private static TestDatabase.Fresh db;
  @TempDir static Path dir;
  private static Cli cli;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("typed_cli");
    cli = new Cli(Map.of("FLOWS_HOME", dir.resolve("home").toString()));
    assertThat(Files.isRegularFile(EXPENSE)).as("the shipped example").isTrue();
  }

  @Test
  void aTypedFlowRunsThroughTheCliAndAnswersItsRecordAsJson() throws Exception {
    Cli.Result r =
        cli.run(
            "--db",
            db.jdbcUrl(),
            "--json",
            "run",
            EXPENSE.toString(),
            "--input",
            "{\"employee\":\"bo\",\"amountCents\":900}");

    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode end = r.jsonLines().getLast();
    assertThat(end.path("type").asText()).isEqualTo("run.end");
    JsonNode out = end.path("output");
    assertThat(List.of(out.path("employee").asText(), out.path("amountCents").asLong()))
        .containsExactly("bo", 900L);
    assertThat(List.of(out.path("status").asText(), out.path("by").asText()))
        .containsExactly("approved", "policy");
  }

  @Test
  void aTypedSignalSentThroughTheCliIsReadAsItsRecordAndRunsShowKeepsItsShape() throws Exception {
    CompletableFuture<Cli.Result> attached =
        CompletableFuture.supplyAsync(
            () ->
                cli.run(
                    "--db",
                    db.jdbcUrl(),
                    "--json",
                    "run",
                    EXPENSE.toString(),
                    "--input",
                    "{\"employee\":\"ann\",\"amountCents\":25000}",
                    "--key",
                    "big"));
    String run = awaitRunningExpense();
    Cli.Result sent =
        cli.run(
            "--db",
            db.jdbcUrl(),
            "runs",
            "signal",
            run,
            "decide",
            "{\"approved\":true,\"by\":\"cy\"}");
    assertThat(sent.exit()).as(sent.err()).isZero();

    Cli.Result r = attached.get(120, TimeUnit.SECONDS);
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.jsonLines().getLast().path("output").path("status").asText())
        .isEqualTo("approved");
    JsonNode shown = cli.run("--db", db.jdbcUrl(), "runs", "show", run, "--json").json();
    assertThat(shown.path("run").path("status").asText()).isEqualTo("succeeded");
    JsonNode body = shown.path("run").path("steps").get(0);
    assertThat(body.path("output").path("by").asText()).isEqualTo("cy");
    assertThat(fields(shown.path("run")))
        .as("runs show --json has the fields of any run")
        .containsAll(List.of("runId", "name", "status", "admissionKey", "queue", "steps"));
    assertThat(fields(body)).containsAll(List.of("stepId", "status", "attemptCount", "output"));
  }

  private static String awaitRunningExpense() throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < until) {
      JsonNode runs =
          cli.run(
                  "--db",
                  db.jdbcUrl(),
                  "--json",
                  "runs",
                  "list",
                  "--flow",
                  "expense",
                  "--status",
                  "running")
              .json()
              .path("runs");
      if (!runs.isEmpty()) {
        return runs.get(0).path("runId").asText();
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no running expense run within 120 s");
  }

  private static Set<String> fields(JsonNode node) {
    Set<String> out = new TreeSet<>();
    node.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
