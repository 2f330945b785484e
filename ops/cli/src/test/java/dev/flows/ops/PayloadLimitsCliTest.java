package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.journal.PayloadLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's payload limits through the CLI: a run input or a signal payload past its limit is
 * refused {@code payload_too_large} in one line (exit 2, the usual {@code --json} error), and
 * nothing is written.
 */
class PayloadLimitsCliTest {
  private static final String FLOW =
"""
      import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
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

  /** One byte of JSON past the default limit. */
  private static final String OVERSIZED =
      "{\"blob\":\"" + "x".repeat((int) PayloadLimits.DEFAULT_MAX_BYTES - 10) + "\"}";

  private static TestDatabase.Fresh db;
  @TempDir static Path dir;
  private static Cli cli;
  private static Path flow;

  @BeforeAll
  static void setUp() throws Exception {
    db = TestDatabase.fresh("limits_cli");
    cli = new Cli(Map.of("FLOWS_HOME", dir.resolve("home").toString()));
    flow = Files.writeString(dir.resolve("waits.flow.java"), FLOW);
  }

  private Cli.Result flows(String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--db";
    all[1] = db.jdbcUrl();
    System.arraycopy(args, 0, all, 2, args.length);
    return cli.run(all);
  }

  private int rootRuns() {
    return flows("--json", "runs", "list").json().path("runs").size();
  }

  @Test
  void aRunInputPastItsLimitIsRefusedInOneLineAndNoRunIsAdmitted() {
    int before = rootRuns();

    Cli.Result human = flows("run", flow.toString(), "--input", OVERSIZED, "--detach");
    Cli.Result json = flows("--json", "run", flow.toString(), "--input", OVERSIZED, "--detach");

    assertThat(human.exit()).isEqualTo(Exit.REFUSED);
    assertThat(human.err().strip().lines()).hasSize(1);
    assertThat(human.err())
        .startsWith("error payload_too_large: ")
        .contains("maxRunInputBytes")
        .contains(String.valueOf(PayloadLimits.DEFAULT_MAX_BYTES + 1))
        .contains("fix: ")
        .doesNotContain("Exception");
    assertThat(json.exit()).isEqualTo(Exit.REFUSED);
    JsonNode error = json.json().path("error");
    assertThat(error.path("code").asText()).isEqualTo("payload_too_large");
    assertThat(error.path("message").asText()).contains("maxRunInputBytes");
    assertThat(rootRuns()).isEqualTo(before);
  }

  @Test
  void aSignalPayloadPastItsLimitIsRefusedAndTheRunsJournalIsUnchanged() {
    Cli.Result started =
        flows("--json", "run", flow.toString(), "--input", "{}", "--detach", "--key", "sig");
    assertThat(started.exit()).as(started.err()).isZero();
    String run = started.jsonLines().getFirst().path("run").asText();
    int entries = flows("--json", "runs", "show", run).json().at("/run/timeline").size();

    Cli.Result refused = flows("--json", "runs", "signal", run, "go", OVERSIZED);

    assertThat(refused.exit()).isEqualTo(Exit.REFUSED);
    assertThat(refused.json().path("error").path("code").asText()).isEqualTo("payload_too_large");
    assertThat(refused.json().path("error").path("message").asText()).contains("maxSignalBytes");
    assertThat(flows("--json", "runs", "show", run).json().at("/run/timeline").size())
        .isEqualTo(entries);
    assertThat(flows("runs", "signal", run, "go", "{\"ok\":true}").exit()).isZero();
  }

  @Test
  void aScheduleInputPastTheRunInputLimitIsRefusedInOneLineAndNothingIsWritten() {
    Cli.Result human =
        flows(
            "schedules", "create", "big", "--flow", "waits", "--every", "1m", "--input", OVERSIZED);
    assertThat(flows("schedules", "create", "big", "--flow", "waits", "--every", "1m").exit())
        .isZero();
    Cli.Result update = flows("--json", "schedules", "update", "big", "--input", OVERSIZED);

    assertThat(human.exit()).isEqualTo(Exit.REFUSED);
    assertThat(human.err().strip().lines()).hasSize(1);
    assertThat(human.err())
        .startsWith("error payload_too_large: ")
        .contains("maxRunInputBytes")
        .contains(String.valueOf(PayloadLimits.DEFAULT_MAX_BYTES + 1))
        .contains("fix: ")
        .doesNotContain("Exception");
    assertThat(update.exit()).isEqualTo(Exit.REFUSED);
    assertThat(update.json().path("error").path("code").asText()).isEqualTo("payload_too_large");
    JsonNode shown = flows("--json", "schedules", "show", "big").json().path("schedule");
    assertThat(shown.path("definition").path("input"))
        .isEqualTo(JsonNodeFactory.instance.objectNode());
  }
}
