package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.mcp.testkit.Jvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** README's "Embed flows in a service" is {@link EmbedExample}, and the example runs. */
class ReadmeExampleTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  static final String SECTION = "## Embed flows in a service";

  /** The first ```java block of README's section. */
  static String readmeSnippet(String readme) {
    int section = readme.indexOf(SECTION);
    assertThat(section).as("README has the section").isNotNegative();
    int open = readme.indexOf("```java\n", section);
    int close = readme.indexOf("\n```", open);
    return readme.substring(open + "```java\n".length(), close);
  }

  /** The lines between the markers, without the indentation they share. */
  static String exampleBody(String source) {
    List<String> lines = Arrays.asList(source.split("\n", -1));
    int begin =
        lines.indexOf(
            lines.stream()
                .filter(l -> l.strip().equals("// README:begin"))
                .findFirst()
                .orElseThrow());
    int end =
        lines.indexOf(
            lines.stream()
                .filter(l -> l.strip().equals("// README:end"))
                .findFirst()
                .orElseThrow());
    List<String> body = lines.subList(begin + 1, end);
    int indent =
        body.stream()
            .filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length())
            .min()
            .orElse(0);
    return String.join(
        "\n", body.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList());
  }

  @Test
  void theReadmeSnippetIsTheExampleThatTheTestsRun() throws Exception {
    String readme = Files.readString(ROOT.resolve("README.md"));
    String example =
        Files.readString(ROOT.resolve("sdk/embed/src/test/java/dev/flows/embed/EmbedExample.java"));
    assertThat(readmeSnippet(readme)).isEqualTo(exampleBody(example));
  }

  @Test
  void theExampleMigratesAnEmptyDatabaseRunsTheFlowAndAnswersItsOutput() throws Exception {
    TestDatabase.Fresh db = TestDatabase.empty("readme_example");
    String answer =
        EmbedExample.triage(
            db.dataSource(),
            McpServer.of(Jvm.stdioServer("tickets", List.of(), Map.of())),
            JsonNodeFactory.instance.objectNode().put("text", "  refund please "));
    assertThat(answer).isEqualTo("category refund please");
  }
}
