package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flows demo --agent}: the example agent on the checkout's scripted model server, offline;
 * the demo approves the refund as the operator and prints the turns, tool calls and answer.
 */
class DemoAgentTest {
  @TempDir Path home;

  private Cli cli() {
    Path checkout = Path.of("..").toAbsolutePath().normalize();
    return new Cli(
        Map.of("FLOWS_HOME", home.toString(), DemoCommand.ROOT_VARIABLE, checkout.toString()));
  }

  @Test
  void theAgentDemoApprovesTheRefundAsDemoAndEndsWithTheTurnsToolCallsAndAnswerInJson()
      throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("demo_agent");

    Cli.Result r = cli().run("--db", db.jdbcUrl(), "--json", "demo", "--agent", "--port", "0");

    assertThat(r.exit()).as(r.err()).isZero();
    List<JsonNode> lines = r.jsonLines();
    List<JsonNode> answers =
        lines.stream().filter(l -> l.path("type").asText().equals("demo.answer")).toList();
    assertThat(answers).hasSize(2);
    assertThat(answers.getFirst().path("call").asText()).isEqualTo("payments/refund");
    assertThat(answers.getFirst().path("answer")).hasToString("{\"approve\":true}");
    assertThat(answers.getFirst().path("arguments").path("amountCents").asLong()).isEqualTo(1200);
    assertThat(answers.get(1).path("answer").path("confirmAmountCents").asLong()).isEqualTo(1200);
    JsonNode end = lines.getLast();
    assertThat(end.path("type").asText()).isEqualTo("demo.end");
    assertThat(end.path("run").path("status").asText()).isEqualTo("succeeded");
    assertThat(end.path("turns")).hasSize(3);
    assertThat(
            java.util.stream.StreamSupport.stream(end.path("toolCalls").spliterator(), false)
                .map(c -> c.path("tool").asText())
                .toList())
        .containsExactlyInAnyOrder("classify", "create_customer", "refund", "create_ticket");
    JsonNode refund =
        java.util.stream.StreamSupport.stream(end.path("toolCalls").spliterator(), false)
            .filter(c -> c.path("tool").asText().equals("refund"))
            .findFirst()
            .orElseThrow();
    assertThat(refund.at("/approval/decision").asText()).isEqualTo("approved");
    assertThat(refund.at("/approval/by").asText()).isEqualTo(DemoAgent.ACTOR);
    assertThat(end.at("/output/answer").asText()).contains("refunded 12.00 EUR");

    // runs show of the ended run tells who approved the refund and how.
    String runId = end.at("/run/runId").asText();
    Cli.Result show = cli().run("--db", db.jdbcUrl(), "runs", "show", runId);
    assertThat(show.out()).contains("step.answered").contains("by=demo");
  }

  @Test
  void theAgentDemoInTextPrintsWhatItApprovesThenTheTurnsToolCallsAndAnswer() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("demo_agent_text");

    Cli.Result r = cli().run("--db", db.jdbcUrl(), "demo", "--agent", "--port", "0");

    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("demo (the operator) approves payments/refund with {")
        .contains("\"amountCents\":1200")
        .contains("'{\"approve\":true}'")
        .contains("turns:")
        .contains("1. asks for tickets__classify")
        .contains("3. answers: Sorry about the double charge")
        .contains("tool calls:")
        .contains("(approved by demo)")
        .contains("answer: Sorry about the double charge");
  }
}
