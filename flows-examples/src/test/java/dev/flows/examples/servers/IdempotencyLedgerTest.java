package dev.flows.examples.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class IdempotencyLedgerTest {
  private final AtomicInteger performed = new AtomicInteger();

  private CallToolResult work() {
    return ToolKit.ok(Map.of("n", performed.incrementAndGet()));
  }

  @Test
  void aFullLedgerRefusesNewKeysButStillAnswersTheKeysItKnows() {
    IdempotencyLedger ledger = new IdempotencyLedger(1);
    CallToolResult first = ledger.perform("k1", "charge", Map.of("a", 1), this::work);
    assertThatThrownBy(() -> ledger.perform("k2", "charge", Map.of("a", 1), this::work))
        .isInstanceOf(ToolError.class)
        .hasMessageContaining("full");
    assertThat(ledger.perform("k1", "charge", Map.of("a", 1), this::work).structuredContent())
        .isEqualTo(first.structuredContent());
    assertThat(performed).hasValue(1);
  }

  @Test
  void anErrorResultRecordsNothingSoACorrectedRetryWithTheSameKeyPerforms() {
    IdempotencyLedger ledger = new IdempotencyLedger(10);
    CallToolResult refused =
        ledger.perform("k", "charge", Map.of("a", 0), () -> ToolKit.error("no"));
    assertThat(refused.isError()).isTrue();
    CallToolResult ok = ledger.perform("k", "charge", Map.of("a", 5), this::work);
    assertThat(ok.isError()).isFalse();
    assertThat(ledger.counts().get("k")).isEqualTo(new IdempotencyLedger.Count("charge", 2, 1));
  }

  @Test
  void aPerformedKeyReusedForAnotherToolIsRefused() {
    IdempotencyLedger ledger = new IdempotencyLedger(10);
    ledger.perform("k", "charge", Map.of("a", 1), this::work);
    assertThatThrownBy(() -> ledger.perform("k", "credit", Map.of("a", 1), this::work))
        .isInstanceOf(ToolError.class)
        .hasMessageContaining("used for charge");
    assertThat(performed).hasValue(1);
  }

  @Test
  void theKeyIsReadFromMetaUnderEitherNameAndMustBeAString() {
    assertThat(IdempotencyLedger.keyOf(request(Map.of(IdempotencyLedger.META_KEY, "a"))))
        .contains("a");
    assertThat(IdempotencyLedger.keyOf(request(Map.of(IdempotencyLedger.META_KEY_PLAIN, "b"))))
        .contains("b");
    assertThat(IdempotencyLedger.keyOf(request(Map.of()))).isEmpty();
    assertThat(IdempotencyLedger.keyOf(new CallToolRequest("t", Map.of()))).isEmpty();
    assertThatThrownBy(
            () -> IdempotencyLedger.keyOf(request(Map.of(IdempotencyLedger.META_KEY, 7))))
        .isInstanceOf(ToolError.class);
    assertThatThrownBy(
            () -> IdempotencyLedger.keyOf(request(Map.of(IdempotencyLedger.META_KEY, " "))))
        .isInstanceOf(ToolError.class);
  }

  private static CallToolRequest request(Map<String, Object> meta) {
    return CallToolRequest.builder().name("t").arguments(Map.of()).meta(meta).build();
  }
}
