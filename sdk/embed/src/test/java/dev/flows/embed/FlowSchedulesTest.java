package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Schedules through the embedding API, on Postgres, ticked by the embedded worker. */
class FlowSchedulesTest {
  /** Answers its input. */
  static final class Echo implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("echo").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      return input;
    }
  }

  @Test
  void aScheduleCreatedThroughTheApiIsTickedByTheEmbeddedWorkerAndControlledByName()
      throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("embed_schedules");
    try (Flows flows =
        Flows.builder().dataSource(db.dataSource()).register(new Echo()).worker().build()) {
      ScheduleInfo created =
          flows
              .schedules()
              .create(
                  "echo-every-second",
                  "echo",
                  Schedule.every(Duration.ofSeconds(1)).overlap("allow-all"),
                  Map.of("hello", "world"));
      assertThat(created.schedule().every()).contains(Duration.ofSeconds(1));
      assertThat(created.input().get("hello").asText()).isEqualTo("world");

      Instant deadline = Instant.now().plusSeconds(30);
      while (flows.schedules().get("echo-every-second").orElseThrow().lastRun().isEmpty()
          && Instant.now().isBefore(deadline)) {
        Thread.sleep(100);
      }
      ScheduleInfo ticked = flows.schedules().get("echo-every-second").orElseThrow();
      assertThat(ticked.lastRun()).isPresent();
      JsonNode out = flows.handle(ticked.lastRun().get()).result(Duration.ofSeconds(30));
      assertThat(out.get("hello").asText()).isEqualTo("world");

      assertThat(flows.schedules().pause("echo-every-second", "quiet").paused()).isTrue();
      assertThat(
              flows
                  .schedules()
                  .update("echo-every-second", Schedule.cron("0 3 * * *"))
                  .schedule()
                  .cron())
          .contains("0 3 * * *");
      assertThat(flows.schedules().list())
          .extracting(ScheduleInfo::name)
          .containsExactly("echo-every-second");
      flows.schedules().delete("echo-every-second");
      assertThat(flows.schedules().get("echo-every-second")).isEmpty();
      assertThatThrownBy(() -> flows.schedules().resume("echo-every-second"))
          .isInstanceOf(FlowsError.class)
          .extracting(e -> ((FlowsError) e).code())
          .isEqualTo(ErrorCode.SCHEDULE_NOT_FOUND.wire());
    }
  }
}
