package dev.flows.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ScaleTargetsTest {
  private static Stats ms(double... millis) {
    return Stats.of(
        java.util.Arrays.stream(millis).mapToLong(m -> (long) (m * 1e6)).boxed().toList());
  }

  private static ShortRunsBench.Cell cell(String shape, int calls, int c, int runs) {
    return new ShortRunsBench.Cell(shape, calls, c, runs, 0, 1.0, 1.0, List.of(ms(1)));
  }

  private static Optional<TargetsMarkdown.Target> row(Report r, String prefix) {
    return ScaleTargets.rows(r).stream()
        .map(ScaleTargets.Row::target)
        .filter(t -> t.name().startsWith(prefix))
        .findFirst();
  }

  @Test
  void aOneStepRunBelowOneAndAHalfTimesDbosIsAMissThatSaysHowManyRunsPerSecondAreMissing() {
    Report r = new Report();
    r.shortRun(cell("1 f.step", 1, 1, 1200));
    r.dbos(cell("1 f.step", 1, 1, 1000));
    r.shortRun(cell("1 f.step", 1, 16, 3000));
    r.dbos(cell("1 f.step", 1, 16, 1000));

    TargetsMarkdown.Target c1 = row(r, "1 f.step runs/s over DBOS direct, C = 1").orElseThrow();
    assertThat(c1.verdict()).isEqualTo("MISS");
    assertThat(c1.measured()).isEqualTo("1.20× (1,200.0 / 1,000.0)");
    assertThat(c1.miss()).isEqualTo("1.25× short (300 runs/s more needed)");
    assertThat(row(r, "1 f.step runs/s over DBOS direct, C = 16").orElseThrow().verdict())
        .isEqualTo("PASS");
  }

  @Test
  void aLoadMeasuredInRoundsIsJudgedByTheMedianOfItsRoundsRatiosWithTheirSpread() {
    Report r = new Report();
    ShortRunsRounds.JvmWork work = new ShortRunsRounds.JvmWork(1, 0, 0);
    r.shortRun(
        ShortRunsBench.Cell.pooled(
            List.of(
                cell("1 f.step", 1, 1, 100),
                cell("1 f.step", 1, 1, 200),
                cell("1 f.step", 1, 1, 300))));
    r.dbos(
        ShortRunsBench.Cell.pooled(
            List.of(
                cell("1 f.step", 1, 1, 50),
                cell("1 f.step", 1, 1, 400),
                cell("1 f.step", 1, 1, 200))));
    r.shortRunsRound(
        new Report.ShortRunsRound("1 f.step", 1, 1, 1, true, 100, 50, 4, 0.25, work, work));
    r.shortRunsRound(
        new Report.ShortRunsRound("1 f.step", 1, 1, 2, false, 200, 400, 4, 0.25, work, work));
    r.shortRunsRound(
        new Report.ShortRunsRound("1 f.step", 1, 1, 3, true, 300, 200, 4, 0.25, work, work));

    TargetsMarkdown.Target c1 = row(r, "1 f.step runs/s over DBOS direct, C = 1").orElseThrow();

    // Each side's median is 200 runs/s; the rounds' ratios are 2.0, 0.5 and 1.5.
    assertThat(c1.measured())
        .isEqualTo("1.50× (200.0 / 200.0; the median of 3 rounds' ratios, 0.50 to 2.00)");
    assertThat(c1.verdict()).isEqualTo("PASS");
  }

  @Test
  void tenStepRunsAreHeldToTwiceDbosAndTheQueueModeIsReportedWithoutABound() {
    Report r = new Report();
    r.shortRun(cell("10 f.step", 10, 4, 390));
    r.dbos(cell("10 f.step", 10, 4, 200));
    r.dbosQueued(cell("10 f.step", 10, 4, 10));

    assertThat(row(r, "10 f.step runs/s over DBOS direct, C = 4").orElseThrow().verdict())
        .isEqualTo("MISS");
    TargetsMarkdown.Target queued =
        row(r, "10 f.step runs/s over DBOS queue mode, C = 4").orElseThrow();
    assertThat(queued.verdict()).isEqualTo("measured");
    assertThat(queued.measured()).startsWith("39.00×");
  }

  @Test
  void aDurableCallThatAddsMoreThanOneMillisecondMissesAndNamesItsTwoLargestStages() {
    Report r = new Report();
    r.mcpRevision(
        "stdio 2026-07-28",
        ms(5, 9),
        ms(1, 2),
        ms(2, 3),
        List.of(ms(0.1), ms(1.5), ms(0.2), ms(2), ms(0.1), ms(0.3), ms(1.2), ms(0.2)));

    TargetsMarkdown.Target p50 =
        row(r, "durable f.mcp added over the interleaved bare call, stdio 2026-07-28, p50")
            .orElseThrow();
    assertThat(p50.verdict()).isEqualTo("MISS");
    assertThat(p50.measured())
        .isEqualTo(
            "3.00 ms (largest stages: server: request on the wire → response read and parsed 2.00,"
                + " record: election statement and commit 1.50)");
    assertThat(p50.miss()).isEqualTo("2.00 ms over");
  }

  @Test
  void growthFiguresOfASmallerJournalThanTheTargetsSayTheTargetsSize() {
    Report r = new Report();
    r.growth(
        new GrowthBench.Result(
            new GrowthBench.Size(2_000_000, 20_000, 100),
            600,
            4,
            new GrowthBench.Figures(Map.of("claim", ms(1, 2)), 1000),
            new GrowthBench.Figures(Map.of("claim", ms(1.1, 2.6)), 900),
            Map.of(),
            Optional.empty(),
            Optional.empty(),
            Map.of(),
            List.of()));

    TargetsMarkdown.Target p50 = row(r, "growth: claim p50").orElseThrow();
    assertThat(p50.name())
        .isEqualTo(
            "growth: claim p50 at 2,000,000 ended + 20,000 waiting"
                + " (the target's size: 10,000,000 + 100,000)");
    assertThat(p50.verdict()).isEqualTo("PASS");
    assertThat(row(r, "growth: claim p99").orElseThrow().verdict()).isEqualTo("MISS");
    assertThat(row(r, "growth: 1-step runs/s").orElseThrow().measured())
        .isEqualTo("1.11× slower filled (900.0 / 1,000.0)");
  }

  @Test
  void eachTargetStatesTheLoadOfTheSectionsItWasMeasuredIn() {
    Report r = new Report();
    r.sectionRan(new Report.SectionRun("shortruns", Instant.EPOCH, 60, 1.5, 2.5));
    r.sectionRan(new Report.SectionRun("dbos", Instant.EPOCH, 60, 2.5, 3.25));
    r.shortRun(cell("1 f.step", 1, 1, 1600));
    r.dbos(cell("1 f.step", 1, 1, 1000));
    StringBuilder md = new StringBuilder();

    ScaleTargets.render(r, md);

    assertThat(md.toString())
        .contains(
            "| 1 f.step runs/s over DBOS direct, C = 1 | 1.60× (1,600.0 / 1,000.0) | ≥ 1.5× | PASS"
                + " |  | 1.5 → 3.3 |");
  }
}
