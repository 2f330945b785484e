package dev.flows.embed;

import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.FlowsError;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link Flows#versions}: the versions of a flow with runs, and the workers that serve each. */
class FlowVersionsTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void aServiceWithVersionsOneAndTwoSeesEachVersionsRunsAndItsOwnWorker() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("flow_versions_embed");
    try (Flows flows =
        withWorker(
                on(db)
                    .register(
                        new ReplayCheckTest.Approval(), new ReplayCheckTest.ApprovalChecked()))
            .build()) {
      RunHandle<JsonNode> old =
          flows.start(ReplayCheckTest.Approval.class, TestFlows.json(Map.of("n", 1)));
      java.util.List<String> workers = flows.versions("approval").getFirst().workers();
      assertThat(workers).hasSize(1);
      String worker = workers.getFirst();

      assertThat(flows.versions("approval"))
          .extracting(v -> v.version() + " " + v.route() + " " + v.runs() + " " + v.workers())
          .containsExactly(
              "1 flow:approval@1 1 [" + worker + "]", "2 flow:approval@2 0 [" + worker + "]");
      assertThat(flows.versions("approval").getFirst().oldestStartedAt()).isPresent();

      old.signal("approve", null);
      assertThat(old.result(WAIT).asText()).isEqualTo("approved");
      assertThat(flows.versions("approval")).extracting(VersionInfo::runs).containsExactly(0L, 0L);
      assertThat(flows.versions("no-such-flow")).isEmpty();
      assertThatThrownBy(() -> flows.versions(" "))
          .isInstanceOfSatisfying(
              FlowsError.class, e -> assertThat(e.code()).isEqualTo("invalid_input"));
    }
    try (Flows admitOnly = on(db).build()) {
      assertThat(admitOnly.versions("approval")).as("the worker withdrew at close").isEmpty();
    }
  }
}
