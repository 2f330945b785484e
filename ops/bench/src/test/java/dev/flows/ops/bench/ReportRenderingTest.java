package dev.flows.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The Markdown of a fixed set of results, every section filled, is the one pinned in {@code
 * report-golden.md}: a change to how a section renders shows here as a diff, not in the next
 * RESULTS.md.
 */
class ReportRenderingTest {
  private static Stats ms(long... millis) {
    return Stats.of(java.util.Arrays.stream(millis).map(m -> m * 1_000_000L).boxed().toList());
  }

  /** Every section of the report filled with fixed numbers (no environment read from the host). */
  static Report filled() {
    Report r = new Report();
    r.baseline(1, new Baseline.Result(1000, ms(1, 2, 3)), new Baseline.Result(900, ms(1, 2)));
    r.baseline(4, new Baseline.Result(3000, ms(2, 3, 5)), new Baseline.Result(2500, ms(2, 4)));
    r.stepsPerFlow(100);
    r.steps(1, 600);
    r.steps(4, 1800);
    r.memoFloor(1, new Baseline.Result(2000, ms(1)), new Baseline.Result(1500, ms(1, 2)));
    r.memoFloor(4, new Baseline.Result(5000, ms(1)), new Baseline.Result(4000, ms(2, 3)));
    r.callFloor(new Baseline.Result(400, ms(2, 3, 4)));
    r.noop(1, 300, new JournalFloor.NoopAttempts(500, ms(1), ms(2), ms(3)));
    r.noop(4, 900, new JournalFloor.NoopAttempts(1200, ms(1, 2), ms(2, 3), ms(3, 4)));
    r.mcp("stdio", 1, 200, ms(4, 5, 6), 800, ms(1, 2));
    r.mcpStages(
        "stdio", List.of(ms(1, 2), ms(2, 3), ms(1, 2), ms(1, 4), ms(1), ms(1), ms(2), ms(1)));
    r.mcpRevision(
        "stdio 2026-07-28",
        ms(9, 12),
        ms(1, 2),
        ms(2, 3),
        List.of(ms(1, 2), ms(2, 3), ms(1, 2), ms(1, 4), ms(1), ms(1), ms(2), ms(1)));
    r.lostBareCalls("stdio", 1, 0);
    r.mcp("stdio", 4, 500, ms(5, 6), 2000, ms(2, 3));
    r.lostBareCalls("stdio", 4, 3);
    r.mcp("http", 1, 150, ms(6, 7), 600, ms(2, 3));
    r.lostBareCalls("http", 1, 1);
    r.dispatch(ms(3, 4, 5, 9));
    r.commits("f.step", 300, new double[] {1.01, 1.0, 1.0, 12, 10, 301});
    r.commits("durable f.mcp (stdio)", 100, new double[] {3.2, 2.1, 2.9, 5, 4, 290});
    r.recovery(Duration.ofSeconds(2), Duration.ofSeconds(5), true, ms(2500, 2900));
    r.recovery(Duration.ofSeconds(30), Duration.ofSeconds(5), true, ms(30_500));
    r.recovery(Duration.ofSeconds(2), Duration.ofSeconds(1), false, ms(2100, 2200));
    r.sleepers(new Report.Sleepers(10_000, 9_990, 200L << 20, 40, 42, 9_980, 12.5, 80.25));
    r.timers(
        new TimersBench.Result(
            new TimersBench.Size(10_000, 1_000),
            10_000,
            250.5,
            100L << 20,
            150L << 20,
            10L << 20,
            12L << 20,
            1_000,
            ms(400, 900, 2000),
            3.25));
    r.waiting(
        new Report.Waiting(
            1000,
            2000,
            1999,
            1000,
            998,
            12.3,
            new Pg.Counters(50, 30),
            10,
            180L << 20,
            90L << 20,
            -1,
            2,
            WaitingBench.renewalPeriodSeconds()));
    r.tasks(
        new Report.Tasks(
            1000,
            16,
            2000,
            240_000,
            1000,
            95.5,
            new TasksBench.Sample(
                27, new WorkerProcesses.Threads(15, 0), 0, 0, 110L << 20, 10L << 20),
            new TasksBench.Sample(
                54, new WorkerProcesses.Threads(41, 20), 15, 1000, 190L << 20, 40L << 20),
            16,
            58,
            120.25,
            1000,
            new TaskPolls(1000, 60_000, 1000, 60_000, 2035, 3296, 0, 140.5, 25_000, 1200, 9800)));
    r.scalingSteps(100);
    r.scaling(1, new ScalingBench.Result(1000, 40, 40));
    r.scaling(2, new ScalingBench.Result(1700, 35, 45));
    r.scaling(8, new ScalingBench.Result(2100, 0, 30));
    r.prune(
        new PruneBench.Result(
            200_000,
            2_000,
            java.time.Duration.ofMillis(50),
            List.of(
                new PruneBench.Window(false, ms(1, 2, 3)),
                new PruneBench.Window(true, ms(2, 3, 5)),
                new PruneBench.Window(false, ms(1, 2, 4)),
                new PruneBench.Window(true, ms(2, 3))),
            4.5,
            200_000,
            2_000));
    r.tracing(
        new Report.Tracing(
            new TracingBench.Mode(1000, 50, 4.5), new TracingBench.Mode(900, 45, 5.0), 12, 34567));
    r.cli(
        List.of(
            new CliBench.Timed("java -version (bare JVM)", ms(40, 45, 60), Set.of(0)),
            new CliBench.Timed("runs show", ms(400, 450, 700), Set.of(0)),
            new CliBench.Timed("runs signal", ms(500, 520, 900), Set.of(2, 0))));
    r.shortRun(
        new ShortRunsBench.Cell(
            "10 f.step",
            10,
            1,
            100,
            0,
            2.0,
            22.5,
            List.of(ms(20, 21, 30), ms(1, 2), ms(8, 9), ms(1), ms(5, 6), ms(1), ms(2)),
            60,
            38,
            List.of(ms(1), ms(2, 3), ms(1, 2), ms(1, 4), ms(1))));
    r.shortRun(
        new ShortRunsBench.Cell(
            "3 f.mcp (stdio)",
            3,
            4,
            50,
            2,
            1.0,
            30.25,
            List.of(ms(12, 14), ms(1), ms(2), ms(1), ms(6, 7), ms(1), ms(1)),
            48,
            0,
            List.of(ms(), ms(), ms(), ms(), ms())));
    r.dbos(new ShortRunsBench.Cell("1 f.step", 1, 1, 300, 0, 2.0, 9.5, List.of(ms(5, 6))));
    r.dbos(new ShortRunsBench.Cell("10 f.step", 10, 1, 200, 0, 2.0, 43.1, List.of(ms(10, 11))));
    r.dbosQueued(new ShortRunsBench.Cell("1 f.step", 1, 1, 100, 0, 2.0, 12.5, List.of(ms(15, 20))));
    r.sectionRan(
        new Report.SectionRun(
            "shortruns", java.time.Instant.parse("2026-12-06T10:00:00Z"), 90, 1.25, 2.0));
    r.sectionRan(
        new Report.SectionRun(
            "dbos", java.time.Instant.parse("2026-12-06T10:01:30Z"), 75, 2.0, 2.5));
    r.runtime(Duration.ofSeconds(187));
    return r;
  }

  @Test
  void aFixedResultSetRendersAsThePinnedMarkdown() throws IOException {
    String md = filled().markdown(Bench.Plan.of("quick"));
    assertThat(md).isEqualTo(golden("report-golden.md"));
  }

  @Test
  void anEmptyRunRendersAsThePinnedMarkdown() throws IOException {
    Report r = new Report();
    r.baseline(1, new Baseline.Result(1000, ms(1, 2, 3)), new Baseline.Result(900, ms(1, 2)));
    assertThat(r.markdown(Bench.Plan.of("full"))).isEqualTo(golden("report-golden-empty.md"));
  }

  @Test
  void aBaselineThatCouldNotStartIsReportedAsSkippedWithWhy() {
    Report r = new Report();
    r.baseline(1, new Baseline.Result(1000, ms(1, 2, 3)), new Baseline.Result(900, ms(1, 2)));
    r.dbosSkipped("NoClassDefFoundError: dev/dbos/transact/DBOS");
    assertThat(r.markdown(Bench.Plan.of("quick")))
        .contains(
            "## Short runs on DBOS Transact\n\n"
                + "skipped: NoClassDefFoundError: dev/dbos/transact/DBOS\n");
  }

  private static String golden(String name) throws IOException {
    try (InputStream in = ReportRenderingTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
