package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConsoleTimelineRowsTest {
  private static ObjectNode runWithAttempt(String reason, String disposition) {
    ObjectNode run = Session.JSON.createObjectNode().put("createdAt", "2026-01-01T00:00:00Z");
    ObjectNode step = run.putArray("steps").addObject().put("stepId", "body");
    step.putArray("attempts")
        .addObject()
        .put("attempt", 1)
        .put("workerId", "w")
        .put("startedAt", "2026-01-01T00:00:01Z")
        .put("endedAt", "2026-01-01T00:00:02Z")
        .put("reason", reason)
        .put("disposition", disposition);
    return run;
  }

  @Test
  void aSuspendedBodyAttemptIsMarkedSuspendedNotARetry() {
    List<ConsoleTimelineRows.Row> rows =
        ConsoleTimelineRows.of(runWithAttempt("suspended", "retry"));
    assertThat(rows)
        .singleElement()
        .extracting(ConsoleTimelineRows.Row::marks)
        .isEqualTo(List.of("suspended"));
  }

  @Test
  void aRetriedAttemptWhoseLeaseExpiredIsMarkedRetryAndLeaseExpired() {
    List<ConsoleTimelineRows.Row> rows =
        ConsoleTimelineRows.of(runWithAttempt("lease_expired", "retry"));
    assertThat(rows.getFirst().marks()).containsExactly("retry", "lease-expired");
    assertThat(rows.getFirst().end()).isPresent();
  }
}
