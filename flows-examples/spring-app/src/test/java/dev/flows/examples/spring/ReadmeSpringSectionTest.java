package dev.flows.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** README's "In a Spring Boot service" shows this service's files as they are. */
class ReadmeSpringSectionTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  private static final Path SOURCES = Path.of("src/main/java/dev/flows/examples/spring");
  static final String SECTION = "## In a Spring Boot service";

  @Test
  void theSectionShowsThePropertiesTheFlowBeanAndTheEndpointOfTheSample() throws Exception {
    List<String> blocks = blocks(Files.readString(ROOT.resolve("README.md")));

    assertThat(blocks).hasSizeGreaterThanOrEqualTo(4);
    assertThat(blocks.get(1))
        .isEqualTo(Files.readString(Path.of("src/main/resources/application.properties")));
    assertThat(blocks.get(2)).isEqualTo(marked(SOURCES.resolve("PackOrder.java")));
    assertThat(blocks.get(3)).isEqualTo(marked(SOURCES.resolve("OrdersController.java")));
  }

  /** The fenced blocks of README's section, each with its final newline. */
  private static List<String> blocks(String readme) {
    int from = readme.indexOf(SECTION);
    assertThat(from).as("README has the section").isNotNegative();
    int to = readme.indexOf("\n## ", from + SECTION.length());
    String section = readme.substring(from, to < 0 ? readme.length() : to);
    List<String> found = new ArrayList<>();
    int open = section.indexOf("\n```");
    while (open >= 0) {
      int start = section.indexOf('\n', open + 1) + 1;
      int close = section.indexOf("\n```", start - 1);
      found.add(section.substring(start, close + 1));
      open = section.indexOf("\n```", close + 4);
    }
    return found;
  }

  /** The lines between the README markers, without the indentation they share. */
  private static String marked(Path source) throws Exception {
    List<String> lines = Arrays.asList(Files.readString(source).split("\n", -1));
    int begin = indexOfMarker(lines, "// README:begin");
    int end = indexOfMarker(lines, "// README:end");
    List<String> body = lines.subList(begin + 1, end);
    int indent =
        body.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    StringBuilder b = new StringBuilder();
    body.forEach(l -> b.append(l.isBlank() ? "" : l.substring(indent)).append('\n'));
    return b.toString();
  }

  private static int indexOfMarker(List<String> lines, String marker) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals(marker)) {
        return i;
      }
    }
    throw new AssertionError("no " + marker);
  }
}
