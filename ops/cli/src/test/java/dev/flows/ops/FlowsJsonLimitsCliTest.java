package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * flows.json's top-level {@code limits} hold for every command that writes through the journal, not
 * only for the workers: a payload under the default but past the file's bound is refused {@code
 * payload_too_large} in one line, nothing written; a bad bound is refused {@code config_invalid}
 * naming its key before the database is touched.
 */
class FlowsJsonLimitsCliTest {
  private static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import dev.flows.sdk.*;

      public class Waits implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("waits").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          return f.awaitSignal("go", java.time.Duration.ofHours(1)).orElse(null);
        }
      }
      """;

  /** The file's bound for run inputs and signals, far under the 4 MiB default. */
  private static final int BOUND = 8192;

  /** A payload past {@link #BOUND}, well under the default. */
  private static final String PAST_THE_FILE = "{\"blob\":\"" + "x".repeat(BOUND) + "\"}";

  private static TestDatabase.Fresh db;
  @TempDir static Path dir;
  private static Cli cli;
  private static Path flow;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("limits_file_cli");
    Path config =
        Files.writeString(
            dir.resolve("flows.json"),
            "{\"limits\": {\"maxRunInputBytes\": "
                + BOUND
                + ", \"maxSignalBytes\": "
                + BOUND
                + "}}");
    cli =
        new Cli(
            Map.of(
                "FLOWS_HOME",
                dir.resolve("home").toString(),
                ConfigLimits.CONFIG_VARIABLE,
                config.toString()));
    flow = Files.writeString(dir.resolve("waits.flow.java"), FLOW);
  }

  private static Cli.Result flows(Cli with, String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--db";
    all[1] = db.jdbcUrl();
    System.arraycopy(args, 0, all, 2, args.length);
    return with.run(all);
  }

  private static Cli.Result flows(String... args) {
    return flows(cli, args);
  }

  private int rootRuns() {
    return flows("--json", "runs", "list").json().path("runs").size();
  }

  @Test
  void aRunInputUnderTheDefaultButPastTheFilesBoundIsRefusedInOneLineAndNoRunIsAdmitted() {
    int before = rootRuns();

    Cli.Result refused = flows("run", flow.toString(), "--input", PAST_THE_FILE, "--detach");

    assertThat(refused.exit()).isEqualTo(Exit.REFUSED);
    assertThat(refused.errLines())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("error payload_too_large: ")
                    .contains("maxRunInputBytes (" + BOUND + " bytes)"));
    assertThat(rootRuns()).isEqualTo(before);
  }

  @Test
  void aSignalUnderTheDefaultButPastTheFilesBoundIsRefusedAndTheRunsJournalIsUnchanged() {
    Cli.Result started =
        flows("--json", "run", flow.toString(), "--input", "{}", "--detach", "--key", "sig");
    assertThat(started.exit()).as(started.err()).isZero();
    String run = started.jsonLines().getFirst().path("run").asText();
    int entries = flows("--json", "runs", "show", run).json().at("/run/timeline").size();

    Cli.Result refused = flows("runs", "signal", run, "go", PAST_THE_FILE);

    assertThat(refused.exit()).isEqualTo(Exit.REFUSED);
    assertThat(refused.errLines())
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("error payload_too_large: ")
                    .contains("maxSignalBytes (" + BOUND + " bytes)"));
    assertThat(flows("--json", "runs", "show", run).json().at("/run/timeline").size())
        .isEqualTo(entries);
    assertThat(flows("runs", "signal", run, "go", "{\"ok\":true}").exit()).isZero();
  }

  @Test
  void aBadBoundInTheFileIsRefusedConfigInvalidNamingItsKeyAndNothingIsWritten() throws Exception {
    int before = rootRuns();
    Path bad =
        Files.writeString(
            dir.resolve("bad-flows.json"), "{\"limits\": {\"maxRunInputBytes\": 4095}}");
    Cli badCli = cli.with(ConfigLimits.CONFIG_VARIABLE, bad.toString());

    Cli.Result run = flows(badCli, "run", flow.toString(), "--input", "{}", "--detach");
    Cli.Result signal = flows(badCli, "runs", "signal", "any-run", "go", "{}");

    for (Cli.Result r : new Cli.Result[] {run, signal}) {
      assertThat(r.exit()).isEqualTo(Exit.REFUSED);
      assertThat(r.errLines())
          .singleElement()
          .satisfies(
              l ->
                  assertThat(l)
                      .startsWith("error config_invalid: ")
                      .contains("/limits/maxRunInputBytes")
                      .contains("4096 to 268435455"));
    }
    assertThat(rootRuns()).isEqualTo(before);
  }
}
