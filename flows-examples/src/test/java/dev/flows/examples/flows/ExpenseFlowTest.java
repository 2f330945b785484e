package dev.flows.examples.flows;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.embed.Flows;
import dev.flows.embed.RunHandle;
import dev.flows.embed.RunInfo;
import dev.flows.embed.RunState;
import dev.flows.embed.StartOptions;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.compile.FlowSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * expense.flow.java, the typed example (a record in, a record out, a typed step and a typed
 * signal), embedded in an application: started by its name, decided by a signal sent through its
 * handle, and found again by the run search.
 */
class ExpenseFlowTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static Flows flows() {
    return Flows.builder()
        .jdbcUrl(TestDatabase.fresh("expense").jdbcUrl())
        .migrate(true)
        .register(FlowSource.compile(ExampleFlowsTest.FLOWS.resolve("expense.flow.java")).flow())
        .worker(w -> w.pollInterval(Duration.ofMillis(50)))
        .build();
  }

  @Test
  void aClaimAboveTheThresholdIsDecidedByTheTypedSignalAndListedByName() throws Exception {
    try (Flows flows = flows()) {
      RunHandle<JsonNode> small =
          flows.start(
              "expense", Map.of("employee", "bo", "amountCents", 900), StartOptions.key("small"));
      RunHandle<JsonNode> big =
          flows.start(
              "expense", Map.of("employee", "ann", "amountCents", 25000), StartOptions.key("big"));
      big.signal("decide", Map.of("approved", false, "by", "cy"));

      JsonNode out = small.result(WAIT);
      assertThat(List.of(out.path("employee").asText(), out.path("amountCents").asLong()))
          .containsExactly("bo", 900L);
      assertThat(List.of(out.path("status").asText(), out.path("by").asText()))
          .containsExactly("approved", "policy");
      assertThat(big.result(WAIT).path("status").asText()).isEqualTo("rejected");
      assertThat(big.result(WAIT).path("by").asText()).isEqualTo("cy");
      List<RunInfo> listed = flows.runs().named("expense").state(RunState.SUCCEEDED).list(10);
      assertThat(listed).extracting(RunInfo::id).containsExactly(big.runId(), small.runId());
    }
  }
}
