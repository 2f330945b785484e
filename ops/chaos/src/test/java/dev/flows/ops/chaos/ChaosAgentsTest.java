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
    assertThat(ChaosAgents.answerViolations("r", 4, answer, List.of("k1", "k2"), PERFORMED))
        .isEmpty();
    assertThat(ChaosAgents.answerViolations("r", 4, answer, List.of("k2", "k1"), PERFORMED))
        .as("the children's confirmation order is not the turns' order")
        .isEmpty();
  }

  @Test
  void anAnswerHoldingAnotherRunsResultIsAViolation() {
    String answer = "answer to agent-4: agent-3/0.0 | performed k1 | performed k2";

    assertThat(ChaosAgents.answerViolations("r", 4, answer, List.of("k1", "k2"), PERFORMED))
        .singleElement()
        .asString()
        .startsWith("agent run r answered " + answer);
  }

  @Test
  void anAnswerMissingALedgerResultOrWithAKeyNeverPerformedIsAViolation() {
    String once = "answer to agent-4: agent-4/0.0 | performed k1";
    String unperformed = "answer to agent-4: agent-4/0.0 | performed k1 | performed k9";

    assertThat(ChaosAgents.answerViolations("r", 4, once, List.of("k1"), PERFORMED)).hasSize(1);
    assertThat(ChaosAgents.answerViolations("r", 4, unperformed, List.of("k1", "k9"), PERFORMED))
        .containsExactly("agent run r's ledger key k9 was never performed");
  }
}
