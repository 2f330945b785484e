package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.FlowsError;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The journal limits an engine's worker options set hold for what is written through that engine: a
 * payload under the default but past the lowered bound is refused {@code payload_too_large},
 * nothing written.
 */
class EngineJournalLimitsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final long BOUND = 8192;

  private TestDatabase.Fresh db;

  @BeforeEach
  void database() {
    db = TestDatabase.fresh("embed_limits");
  }

  @Test
  void aRunInputAndASignalPastTheEnginesLoweredLimitsAreRefusedWithNothingWritten()
      throws InterruptedException {
    try (Flows flows =
        TestFlows.on(db)
            .register(new TestFlows.Shout())
            .worker(w -> w.capacity(2).maxRunInputBytes(BOUND).maxSignalBytes(BOUND))
            .build()) {
      JsonNode big = TestFlows.json(Map.of("text", "x".repeat((int) BOUND)));
      assertThatThrownBy(() -> flows.start(TestFlows.Shout.class, big, StartOptions.key("big")))
          .isInstanceOfSatisfying(
              FlowsError.class,
              e -> {
                assertThat(e.code()).isEqualTo("payload_too_large");
                assertThat(e.getMessage()).contains("maxRunInputBytes (" + BOUND + " bytes)");
              });
      assertThat(flows.runs().list(10)).isEmpty();

      RunHandle<JsonNode> small =
          flows.start(TestFlows.Shout.class, TestFlows.json(Map.of("text", "hi")));
      assertThat(small.result(WAIT).path("text").asText()).isEqualTo("HI");
      assertThatThrownBy(() -> small.signal("late", big))
          .isInstanceOfSatisfying(
              FlowsError.class, e -> assertThat(e.code()).isEqualTo("payload_too_large"));
    }
  }

  @Test
  void aLimitOutOfRangeIsRefusedConfigInvalidAtBuild() {
    assertThatThrownBy(() -> TestFlows.on(db).worker(w -> w.maxAnswerBytes(100)))
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo("config_invalid");
              assertThat(e.getMessage()).contains("maxAnswerBytes");
            });
  }
}
