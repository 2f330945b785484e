package dev.flows.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * README's "Test a flow" shows the external project's test as it is: the class the build runs
 * against the installed artifacts (src/it/external-project), from its annotation to its end.
 */
class ReadmeTestExampleTest {
  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();

  @Test
  void readmeShowsTheExternalProjectsTestAsItIs() throws Exception {
    String test =
        Files.readString(
            Path.of("src/it/external-project/src/test/java/com/example/orders/ShipOrderTest.java"));
    String readme = Files.readString(ROOT.resolve("README.md"));
    String shown = test.substring(test.indexOf("@FlowsTest")).strip();
    String section = readme.substring(readme.indexOf("**Test a flow**"));
    String block = section.substring(section.indexOf("```java") + "```java".length());
    assertThat(block.substring(0, block.indexOf("```")).strip()).isEqualTo(shown);
  }
}
