package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No two main classes of the tree share a simple name, whatever their module: a reader (and a stack
 * trace) names a class by its simple name, and two of them would say two things.
 */
class MainClassNamesTest {
  private static final Path ROOT = Launcher.repoRoot();

  /** Each simple name held by more than one main source, with the sources holding it. */
  static Map<String, List<String>> duplicated(Path root) throws IOException {
    Map<String, List<String>> byName = new TreeMap<>();
    for (Path f : MainSources.under(root)) {
      String name = f.getFileName().toString().replaceFirst("\\.java$", "");
      if (name.equals("package-info") || name.equals("module-info")) {
        continue;
      }
      byName.computeIfAbsent(name, n -> new ArrayList<>()).add(root.relativize(f).toString());
    }
    byName.values().removeIf(files -> files.size() < 2);
    return byName;
  }

  @Test
  void noTwoMainClassesShareASimpleName() throws IOException {
    Map<String, List<String>> found = duplicated(ROOT);
    assertThat(found).as("simple names held twice").isEmpty();
  }

  @Test
  void theCheckFindsASimpleNameInTwoModulesAndIgnoresTests(@TempDir Path dir) throws IOException {
    for (String source :
        List.of(
            "a/src/main/java/x/Session.java",
            "b/src/main/java/y/Session.java",
            "a/src/main/java/x/Only.java",
            "b/src/test/java/y/Only.java")) {
      Path f = dir.resolve(source);
      Files.createDirectories(f.getParent());
      Files.writeString(f, "class C {}\n");
    }
    assertThat(duplicated(dir))
        .containsOnlyKeys("Session")
        .containsEntry(
            "Session", List.of("a/src/main/java/x/Session.java", "b/src/main/java/y/Session.java"));
  }
}
