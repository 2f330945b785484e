package dev.flows.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The short runs against DBOS in rounds: the table's ratio is the median of the rounds' ratios (one
 * round that met a loaded minute on one side moves it least), each round is a row of its own, and
 * the number of rounds is the mode's unless the environment sets it.
 */
class ShortRunsRoundsTest {
  private static final ShortRunsRounds.JvmWork WORK = new ShortRunsRounds.JvmWork(1, 0, 0);

  private static ShortRunsBench.Cell cell(double runsPerSecond) {
    return new ShortRunsBench.Cell(
        "1 f.step", 1, 1, (int) runsPerSecond, 0, 1.0, 1.0, List.of(Stats.of(List.of(1_000_000L))));
  }

  private static ShortRunsBench.Cell pooled(double... rates) {
    return ShortRunsBench.Cell.pooled(
        java.util.Arrays.stream(rates).mapToObj(ShortRunsRoundsTest::cell).toList());
  }

  private static Report.ShortRunsRound round(int n, double ours, double theirs) {
    return new Report.ShortRunsRound(
        "1 f.step", 1, 1, n, n % 2 == 1, ours, theirs, 4.0, 0.25, WORK, WORK);
  }

  @Test
  void theRatioOfALoadMeasuredInRoundsIsTheMedianOfTheRoundsRatiosNotOfTheMedians() {
    Report r = new Report();
    r.shortRun(pooled(100, 200, 300));
    r.dbos(pooled(50, 400, 200));
    r.shortRunsRound(round(1, 100, 50));
    r.shortRunsRound(round(2, 200, 400));
    r.shortRunsRound(round(3, 300, 200));

    String md = r.markdown(Bench.Plan.of("quick"));

    // Each side's median is 200 runs/s (their ratio 1.00); the rounds' ratios are 2.0, 0.5, 1.5.
    assertThat(md)
        .contains("| 1 f.step | 1 | 200.0 | 200.0 | 1.50 |")
        .contains("ran in 3 rounds (FLOWS_BENCH_SHORTRUNS_ROUNDS sets how many)")
        .contains("| 1 f.step | 1 | 1 | this engine | 100.0 | 50.0 | 2.00 | 4.00 | 0.25 |")
        .contains("| 1 f.step | 1 | 2 | DBOS | 200.0 | 400.0 | 0.50 | 4.00 | 0.25 |")
        .contains("| 1 f.step | 1 | 3 | this engine | 300.0 | 200.0 | 1.50 | 4.00 | 0.25 |");
  }

  @Test
  void aPooledCellKeepsEveryRoundsRunsAndTheMedianRate() {
    ShortRunsBench.Cell c = pooled(100, 300, 200, 400);

    assertThat(c.runs()).isEqualTo(1000);
    assertThat(c.total().sortedNanos()).hasSize(4);
    assertThat(c.runsPerSecond()).isEqualTo(250.0);
  }

  @Test
  void theRoundsAreTheModesUnlessTheEnvironmentSetsThem() {
    assertThat(ShortRunsRounds.rounds("full", Optional.empty())).isEqualTo(3);
    assertThat(ShortRunsRounds.rounds("quick", Optional.empty())).isEqualTo(2);
    assertThat(ShortRunsRounds.rounds("smoke", Optional.empty())).isEqualTo(1);
    assertThat(ShortRunsRounds.rounds("quick", Optional.of("5"))).isEqualTo(5);
  }

  @Test
  void roundsThatAreNotAWholeNumberAboveZeroAreRefusedWithTheFix() {
    for (String bad : List.of("0", "-1", "three", "")) {
      assertThatThrownBy(() -> ShortRunsRounds.rounds("quick", Optional.of(bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "FLOWS_BENCH_SHORTRUNS_ROUNDS takes a whole number of rounds, 1 or more; got '"
                  + bad
                  + "'");
    }
  }
}
