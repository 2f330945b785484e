package dev.flows.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The kernel is pure: no JDBC, Jdbi, HTTP, process or socket I/O, and no other module of ours.
 * Dependencies point inward; this test holds the line by reading the kernel's sources.
 */
class ArchitectureTest {
  private static final List<Pattern> FORBIDDEN =
      List.of(
          Pattern.compile("^import\\s+(static\\s+)?java\\.sql\\b"),
          Pattern.compile("^import\\s+(static\\s+)?javax\\.sql\\b"),
          Pattern.compile("^import\\s+(static\\s+)?org\\.jdbi\\b"),
          Pattern.compile("^import\\s+(static\\s+)?org\\.postgresql\\b"),
          Pattern.compile("^import\\s+(static\\s+)?com\\.zaxxer\\b"),
          Pattern.compile("^import\\s+(static\\s+)?org\\.flywaydb\\b"),
          Pattern.compile("^import\\s+(static\\s+)?java\\.net\\.http\\b"),
          Pattern.compile(
              "^import\\s+(static\\s+)?java\\.net\\.(Socket|ServerSocket|URLConnection|HttpURLConnection)\\b"),
          Pattern.compile("^import\\s+(static\\s+)?io\\.modelcontextprotocol\\b"),
          Pattern.compile("^import\\s+(static\\s+)?dev\\.flows\\.(?!kernel\\b)\\w+"),
          Pattern.compile("\\bProcessBuilder\\b"),
          Pattern.compile("\\bRuntime\\.getRuntime\\(\\)\\.exec\\b"),
          Pattern.compile("\\bProcessHandle\\b"));

  static List<String> violations(Path root) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i).strip();
          for (Pattern p : FORBIDDEN) {
            if (p.matcher(line).find()) {
              found.add(root.relativize(f) + ":" + (i + 1) + ": " + line);
            }
          }
        }
      }
    }
    return found;
  }

  @Test
  void kernelSourcesImportNoIoLibraryAndNoOtherModuleOfOurs() throws IOException {
    Path main = Path.of("src/main/java");
    assertThat(main).isDirectory();
    assertThat(violations(main)).isEmpty();
  }

  @Test
  void theCheckCatchesAForbiddenImport(@org.junit.jupiter.api.io.TempDir Path dir)
      throws IOException {
    Files.writeString(
        dir.resolve("Bad.java"),
        "package dev.flows.kernel;\nimport java.sql.Connection;\nimport dev.flows.worker.X;\n"
            + "class Bad { Object p = new ProcessBuilder(); }\n");
    assertThat(violations(dir)).hasSize(3);
  }

  @Test
  void theKernelPomDependsOnNoOtherModuleOfOurs() throws IOException {
    String pom = Files.readString(Path.of("pom.xml"));
    String deps = pom.substring(pom.indexOf("<dependencies>"));
    assertThat(deps).doesNotContain("<groupId>dev.flows</groupId>");
  }
}
