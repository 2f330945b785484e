package dev.flows.ops;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The main Java sources of every module of the tree, for the architecture tests. */
final class MainSources {
  private MainSources() {}

  /** Every {@code src/main/java} source under {@code root}, build output and node modules aside. */
  static List<Path> under(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> p.toString().contains("/src/main/java/"))
          .filter(p -> !p.toString().contains("/target/"))
          .filter(p -> !p.toString().contains("/node_modules/"))
          .sorted()
          .toList();
    }
  }
}
