package dev.flows.ops.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The chaos run's agent check: an agent's answer must be the model's for its own results. */
class ChaosAgentsTest {
  private static final Set<String> PERFORMED = Set.of("k1", "k2", "k3");

  @Test
  void anAnswerBuiltFromTheRunsOwnEchoAndLedgerResultsPasses() {
    String answer = "answer to agent-4: agent-4/0.0 | performed k1 | performed k2";

    assertThat(ChaosAgents.expected(4, List.of("performed k1", "performed k2"))).isEqualTo(answer);
    assertThat(
            ChaosAgents.answerViolations("r", 4, answer, List.of("k1", "k2"), List.of(), PERFORMED))
        .isEmpty();
    assertThat(
            ChaosAgents.answerViolations("r", 4, answer, List.of("k2", "k1"), List.of(), PERFORMED))
        .as("the children's confirmation order is not the turns' order")
        .isEmpty();
  }

  @Test
  void anAnswerHoldingAnotherRunsResultIsAViolation() {
    String answer = "answer to agent-4: agent-3/0.0 | performed k1 | performed k2";

    assertThat(
            ChaosAgents.answerViolations("r", 4, answer, List.of("k1", "k2"), List.of(), PERFORMED))
        .singleElement()
        .asString()
        .startsWith("agent run r answered " + answer);
  }

  @Test
  void anAnswerMissingALedgerResultOrWithAKeyNeverPerformedIsAViolation() {
    String once = "answer to agent-4: agent-4/0.0 | performed k1";
    String unperformed = "answer to agent-4: agent-4/0.0 | performed k1 | performed k9";

    assertThat(ChaosAgents.answerViolations("r", 4, once, List.of("k1"), List.of(), PERFORMED))
        .hasSize(1);
    assertThat(
            ChaosAgents.answerViolations(
                "r", 4, unperformed, List.of("k1", "k9"), List.of(), PERFORMED))
        .containsExactly("agent run r's ledger key k9 was never performed");
  }

  @Test
  void aFailedLedgerCallAnsweredAsAnErrorPassesOnlyWhenTheServerNeverPerformedItsKey() {
    String answer =
        "answer to agent-4: agent-4/0.0 | performed k1 | error (mcp_disconnected): f.mcp failed";

    assertThat(
            ChaosAgents.answerViolations("r", 4, answer, List.of("k1"), List.of("k7"), PERFORMED))
        .isEmpty();
    assertThat(
            ChaosAgents.answerViolations("r", 4, answer, List.of("k1"), List.of("k2"), PERFORMED))
        .containsExactly(
            "agent run r answered a failed ledger call whose key k2 the server performed");
    assertThat(
            ChaosAgents.answerViolations("r", 4, answer, List.of("k1", "k2"), List.of(), PERFORMED))
        .as("a confirmed call answered as an error")
        .hasSize(1);
  }
}
