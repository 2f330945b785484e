package dev.flows.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ops/bench/compare} joins old and new reports cell by cell with {@code compare_reports.py}:
 * rows of one table that share their first cell (a shape at several concurrencies) must stay apart,
 * or the medians would mix concurrencies.
 */
class CompareReportsTest {
  private static final String TABLE =
      """
      ## Short runs

      | runs of | C | runs/s |
      |---|---|---|
      | 1 f.step | 1 | %d |
      | 1 f.step | 4 | %d |
      | 10 f.step | 1 | 50 |
      """;

  @Test
  void rowsOfOneShapeAtSeveralConcurrenciesAreComparedEachWithItsOwnRow(@TempDir Path dir)
      throws Exception {
    Path old = Files.writeString(dir.resolve("old.md"), TABLE.formatted(100, 400));
    Path neu = Files.writeString(dir.resolve("new.md"), TABLE.formatted(200, 800));

    List<String> rows = compare(old, neu);

    assertThat(rows)
        .contains(
            "| 1 f.step, C 1 | runs/s | 100.00 | 200.00 | 2.00 |",
            "| 1 f.step, C 4 | runs/s | 400.00 | 800.00 | 2.00 |",
            "| 10 f.step | runs/s | 50.00 | 50.00 | 1.00 |");
  }

  private static final String ROUNDS =
      """
      ## Short runs on DBOS Transact

      | runs of | C | round | first | this engine runs/s | DBOS runs/s | ratio |
      |---|---|---|---|---|---|---|
      | 1 f.step | 1 | 1 | this engine | 800 | 400 | %s |
      | 1 f.step | 1 | 2 | DBOS | 800 | 800 | %s |
      | 1 f.step | 4 | 1 | DBOS | 1400 | 700 | 2.00 |
      """;

  @Test
  void eachRoundOfALoadIsComparedWithTheSameRoundOfThatLoad(@TempDir Path dir) throws Exception {
    Path old = Files.writeString(dir.resolve("old.md"), ROUNDS.formatted("2.00", "1.00"));
    Path neu = Files.writeString(dir.resolve("new.md"), ROUNDS.formatted("3.00", "1.50"));

    List<String> rows = compare(old, neu);

    assertThat(rows)
        .contains(
            "| 1 f.step, C 1 #1 | ratio | 2.00 | 3.00 | 1.50 |",
            "| 1 f.step, C 1 #2 | ratio | 1.00 | 1.50 | 1.50 |",
            "| 1 f.step, C 4 | ratio | 2.00 | 2.00 | 1.00 |");
  }

  private static final String TWO_MODES =
      """
      ## Short runs on DBOS Transact

      | runs of | C | DBOS runs/s |
      |---|---|---|
      | 1 f.step | 1 | %d |

      Each round:

      | runs of | C | round | this engine runs/s |
      |---|---|---|---|
      | 1 f.step | 1 | 1 | 900 |

      DBOS's queue mode:

      | runs of | C | DBOS runs/s |
      |---|---|---|
      | 1 f.step | 1 | %d |
      """;

  @Test
  void twoTablesOfOneShapeUnderOneHeadingAreComparedTableByTableNotPooled(@TempDir Path dir)
      throws Exception {
    Path old = Files.writeString(dir.resolve("old.md"), TWO_MODES.formatted(500, 2));
    Path neu = Files.writeString(dir.resolve("new.md"), TWO_MODES.formatted(400, 1));

    List<String> rows = compare(old, neu);

    assertThat(rows)
        .contains(
            "| 1 f.step | DBOS runs/s | 500.00 | 400.00 | 0.80 |",
            "## Short runs on DBOS Transact (table 2 of this shape)",
            "| 1 f.step | DBOS runs/s | 2.00 | 1.00 | 0.50 |");
  }

  private static List<String> compare(Path old, Path neu) throws IOException, InterruptedException {
    Path script = Path.of(System.getProperty("user.dir"), "compare_reports.py");
    Process p =
        new ProcessBuilder(
                "python3",
                script.toString(),
                "--old-rev",
                "a",
                "--new-rev",
                "b",
                "old=" + old,
                "new=" + neu)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out.lines().toList();
  }
}
