package dev.flows.kernel.keys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.RunRef;
import org.junit.jupiter.api.Test;

class KeysTest {
  @Test
  void theIdempotencyKeyIsTheSameForEveryAttemptAndDiffersAcrossSteps() {
    RunRef run = new RunRef("run_1");
    assertThat(Keys.idempotencyKey(run, "a")).isEqualTo(Keys.idempotencyKey(run, "a"));
    assertThat(Keys.idempotencyKey(run, "a")).isNotEqualTo(Keys.idempotencyKey(run, "b"));
    assertThat(Keys.idempotencyKey(run, "a")).hasSize(64).matches("[0-9a-f]+");
  }

  @Test
  void theSeparatorKeepsShiftedBoundariesApart() {
    assertThat(Keys.idempotencyKey(new RunRef("ab"), "c"))
        .isNotEqualTo(Keys.idempotencyKey(new RunRef("a"), "bc"));
  }

  @Test
  void theIdempotencyKeyIsSha256OfRunIdSeparatorStepId() {
    assertThat(Keys.idempotencyKey(new RunRef("r"), "s")).isEqualTo(Keys.sha256Hex("r\u0000s"));
  }

  @Test
  void leaseIdsAreUniquePerAttempt() {
    RunRef run = new RunRef("run_1");
    assertThat(Keys.leaseId(run, "a", 1)).isNotEqualTo(Keys.leaseId(run, "a", 2));
    assertThat(Keys.leaseId(run, "a", 1)).isNotEqualTo(Keys.leaseId(run, "b", 1));
  }
}
