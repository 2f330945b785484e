package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** How {@code runs show} writes the memos of calls with a policy. */
class CallPolicyViewTest {
  private static JsonNode json(String text) throws Exception {
    return Session.JSON.readTree(text);
  }

  @Test
  void aChildFlowAttemptMemoReadsAsTheFlowCallItsAttemptAndWhatFailedBefore() throws Exception {
    JsonNode decided =
        json(
            "{\"verb\":\"f.flow\",\"flow\":\"refund\",\"attempt\":2,\"child\":\"child_ab\","
                + "\"notBefore\":\"2026-01-01T00:00:01Z\","
                + "\"after\":{\"code\":\"flow_failed\",\"message\":\"no charge\"}}");
    JsonNode deadline =
        json(
            "{\"verb\":\"f.flow\",\"flow\":\"refund\",\"attempt\":2,"
                + "\"deadline\":\"2026-01-01T00:00:05Z\"}");

    assertThat(CallPolicyView.memoText(decided))
        .contains(
            "f.flow(\"refund\") attempt 2, child child_ab, not before 2026-01-01T00:00:01Z;"
                + " after flow_failed: no charge");
    assertThat(CallPolicyView.memoText(deadline))
        .contains("f.flow(\"refund\") attempt 2 deadline 2026-01-01T00:00:05Z");
  }

  @Test
  void aStepMemoWithoutPolicyOrErrorIsNotShown() throws Exception {
    assertThat(CallPolicyView.memoText(json("{\"name\":\"s\",\"value\":1}"))).isEmpty();
  }
}
