package dev.flows.ops;

import static dev.flows.kernel.journal.TwoFailuresRun.journal;
import static dev.flows.kernel.journal.TwoFailuresRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The run of {@link dev.flows.kernel.journal.TwoFailuresRun}, as runs show reads it. */
class RunFailureJsonTest {
  @Test
  void runsShowNamesTheStepThatFailedTheRunNotTheFirstListedFailedOne() {
    ObjectNode failure = RunJson.failure(journal(), run()).orElseThrow();
    assertThat(failure.path("stepId").asText()).isEqualTo("b");
    assertThat(failure.path("message").asText()).isEqualTo("b broke");
  }
}
