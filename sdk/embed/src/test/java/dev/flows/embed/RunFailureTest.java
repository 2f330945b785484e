package dev.flows.embed;

import static dev.flows.kernel.journal.TwoFailuresRun.journal;
import static dev.flows.kernel.journal.TwoFailuresRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The run of {@link dev.flows.kernel.journal.TwoFailuresRun}, as the embedding API reads it. */
class RunFailureTest {
  @Test
  void aRunWhoseFirstListedFailedStepDidNotFailItNamesTheStepThatDid() {
    RunFailedException e = (RunFailedException) RunOutcomes.notSucceeded(journal(), run());
    assertThat(e.stepId()).contains("b");
    assertThat(e.diagnostic().path("message").asText()).isEqualTo("b broke");
    assertThat(e.getMessage()).contains("b broke");
  }
}
