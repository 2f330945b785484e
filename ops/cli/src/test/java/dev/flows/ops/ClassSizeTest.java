package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No main source file of the engine's modules (kernel, journal-store, worker, sdk) and of ops (the
 * CLI, with ops/bench and ops/chaos), nor of the modules nested in them, is over {@value
 * #MAX_LINES} lines: a class that grows past it holds more than one responsibility and is split by
 * them.
 */
class ClassSizeTest {
  private static final Path ROOT = Launcher.repoRoot();
  private static final int MAX_LINES = 500;
  private static final List<String> MODULES =
      List.of("kernel", "journal-store", "worker", "sdk", "ops");

  /** Every main Java source under {@code module} (nested modules too) over the limit. */
  static List<String> oversized(Path module) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(module)) {
      for (Path f :
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> p.toString().contains("/src/main/java/"))
              .filter(p -> !p.toString().contains("/target/"))
              .sorted()
              .toList()) {
        long lines;
        try (Stream<String> l = Files.lines(f)) {
          lines = l.count();
        }
        if (lines > MAX_LINES) {
          found.add(module.relativize(f) + ": " + lines + " lines");
        }
      }
    }
    return found;
  }

  @Test
  void noMainSourceOfTheEngineModulesIsOverFiveHundredLines() throws IOException {
    List<String> found = new ArrayList<>();
    for (String module : MODULES) {
      Path dir = ROOT.resolve(module);
      assertThat(dir).isDirectory();
      oversized(dir).forEach(f -> found.add(module + "/" + f));
    }
    assertThat(found).isEmpty();
  }

  @Test
  void theCheckFindsAMainSourceOverTheLimitAndIgnoresTests(@TempDir Path dir) throws IOException {
    Path main = Files.createDirectories(dir.resolve("nested/src/main/java/x"));
    Path test = Files.createDirectories(dir.resolve("nested/src/test/java/x"));
    String big = "class Big {}\n".repeat(MAX_LINES + 1);
    Files.writeString(main.resolve("Big.java"), big);
    Files.writeString(main.resolve("Fits.java"), "class Fits {}\n".repeat(MAX_LINES));
    Files.writeString(test.resolve("BigTest.java"), big);
    assertThat(oversized(dir)).containsExactly("nested/src/main/java/x/Big.java: 501 lines");
  }
}
