package dev.flows.kernel.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunRefTest {
  @Test
  void aNewRunIdIsRunAnd32HexDigits() {
    assertThat(RunRef.random().value()).matches("run_[0-9a-f]{32}");
  }

  @Test
  void newRunIdsSortInTheOrderTheyWereMade() throws InterruptedException {
    List<String> made = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      made.add(RunRef.random().value());
      Thread.sleep(2);
    }
    assertThat(made).isSorted();
  }

  @Test
  void newRunIdsMadeInTheSameMillisecondStillDiffer() {
    HashSet<String> ids = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      ids.add(RunRef.random().value());
    }
    assertThat(ids).hasSize(10_000);
  }
}
