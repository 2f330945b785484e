package dev.flows.kernel.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class McpCallFailuresTest {

  @Test
  void aCallThatTimedOutLostItsConnectionOrLostItsAnswerMayHaveBeenPerformed() {
    assertThat(McpCallFailures.mayHaveBeenPerformed("timeout")).isTrue();
    assertThat(McpCallFailures.mayHaveBeenPerformed("mcp_disconnected")).isTrue();
    assertThat(McpCallFailures.mayHaveBeenPerformed("mcp_result_unavailable")).isTrue();
  }

  @Test
  void aCallRefusedBeforeItWasSentOrAnsweredIsKnown() {
    assertThat(
            Arrays.stream(McpDiagnostic.values())
                .filter(McpCallFailures::mayHaveBeenPerformed)
                .map(McpDiagnostic::wire))
        .containsExactlyInAnyOrder("mcp_disconnected", "mcp_result_unavailable");
    assertThat(McpCallFailures.mayHaveBeenPerformed("secret_key_missing")).isFalse();
    assertThat(McpCallFailures.mayHaveBeenPerformed("effect_outcome_unknown")).isFalse();
    assertThat(McpCallFailures.mayHaveBeenPerformed("")).isFalse();
  }
}
