package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a body waiting for a signal shows: the command that sends it, for this very run. */
class BodyWaitTest {
  private static final String RUN = "run_0f3c2a";

  private static JsonNode waitingRun() throws Exception {
    return Session.JSON.readTree(
        """
        {"runId":"%s","name":"approval","status":"running","steps":[
          {"stepId":"body","kind":"agent","status":"ready","attemptCount":1,
           "lastReason":"suspended",
           "waitsFor":{"kind":"signal","signal":"approve","until":"2026-12-05T10:00:00Z"}}]}
        """
            .formatted(RUN));
  }

  @Test
  void theSignalHintOfRunsShowNamesTheRunItIsFor() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    RunText.print(new PrintStream(out, true, StandardCharsets.UTF_8), waitingRun(), "", false);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("flows runs signal " + RUN + " approve").doesNotContain(" RUN ");
  }

  @Test
  void theSignalHintOfTheConsoleNamesTheRunItIsFor() throws Exception {
    String page =
        ConsolePages.detail(waitingRun(), false, Optional.empty(), java.time.Instant.now(), "csrf");
    assertThat(page).contains("flows runs signal " + RUN + " approve").doesNotContain(" RUN ");
  }
}
