package dev.flows.kernel.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.InvalidSpecException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RunAdmissionTest {
  @ParameterizedTest(name = "{0} is refused at {2} and nothing is written")
  @CsvSource(
      delimiter = '|',
      value = {
        "unknown field|{\"version\":\"0.1.0\",\"steps\":[{\"id\":\"a\",\"llm\":{\"prompt\":\"p\"},\"bogus\":1}]}|/steps/0/bogus",
        "wrong type|{\"version\":\"0.1.0\",\"steps\":[{\"id\":7,\"llm\":{\"prompt\":\"p\"}}]}|/steps/0/id",
        "missing field|{\"version\":\"0.1.0\"}|/steps",
        "empty step list|{\"version\":\"0.1.0\",\"steps\":[]}|/steps",
        "duplicate id|{\"version\":\"0.1.0\",\"steps\":[{\"id\":\"a\",\"llm\":{\"prompt\":\"p\"}},{\"id\":\"a\",\"llm\":{\"prompt\":\"p\"}}]}|/steps/1/id",
        "cycle|{\"version\":\"0.1.0\",\"steps\":[{\"id\":\"a\",\"dependsOn\":[\"b\"],\"llm\":{\"prompt\":\"p\"}},{\"id\":\"b\",\"dependsOn\":[\"a\"],\"llm\":{\"prompt\":\"p\"}}]}|/steps/0"
      })
  void aBadSpecIsRefusedWithItsPointerAndTheJournalStaysEmpty(
      String what, String json, String pointer) {
    InMemoryJournal journal = new InMemoryJournal(new ManualClock(Instant.EPOCH));
    assertThatThrownBy(
            () ->
                RunAdmission.start(journal, "k", json, Optional.empty(), Optional.empty(), "test"))
        .isInstanceOfSatisfying(
            InvalidSpecException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.INVALID_SPEC);
              assertThat(e.pointer()).isEqualTo(pointer);
            });
    assertThat(
            journal.claim(
                new ClaimRequest(
                    new WorkerId("w"),
                    EnumSet.allOf(dev.flows.kernel.spec.StepKind.class),
                    10,
                    Duration.ofSeconds(1))))
        .isEmpty();
    // The admission key was not taken: a valid spec under it is created now, as the first run.
    StartedRun ok = journal.startRun(StartRun.of("k", Specs.run(Specs.llm("a"))));
    assertThat(ok.created()).isTrue();
    assertThat(journal.entries(ok.runId())).hasSize(1);
  }
}
