package dev.flows.kernel.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class MemoVerbTest {
  @Test
  void aMemoWithoutAVerbIsAStepsAndAnUnknownVerbIsNoneOfOurs() {
    var json = JsonNodeFactory.instance;
    assertThat(MemoVerb.of(json.objectNode().put("name", "x"))).contains(MemoVerb.STEP);
    assertThat(MemoVerb.of(json.objectNode().put("verb", "f.sleep"))).contains(MemoVerb.SLEEP);
    assertThat(MemoVerb.of(json.objectNode().put("verb", "f.nope"))).isEqualTo(Optional.empty());
  }

  /** The same text used for something else than a memo's verb: the bench's report labels. */
  private static final List<String> OTHER_MEANINGS =
      List.of("CommitsBench.java", "TargetsMarkdown.java");

  /** A verb spelled as a literal elsewhere is a second owner that can drift from this one. */
  @Test
  void noMainSourceOutsideMemoVerbSpellsAVerbAsAStringLiteral() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    List<String> offenders = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> p.toString().contains("/src/main/java/"))
          .filter(p -> !p.toString().contains("/target/"))
          .filter(p -> !p.getFileName().toString().equals("MemoVerb.java"))
          .filter(p -> !OTHER_MEANINGS.contains(p.getFileName().toString()))
          .forEach(p -> offenders.addAll(literals(root, p)));
    }
    assertThat(offenders).isEmpty();
  }

  private static List<String> literals(Path root, Path file) {
    try {
      // Code only: comments quote memos as examples.
      String text =
          Files.readAllLines(file).stream()
              .map(String::strip)
              .filter(l -> !l.startsWith("*") && !l.startsWith("//") && !l.startsWith("/*"))
              .reduce("", (a, b) -> a + "\n" + b);
      List<String> found = new ArrayList<>();
      for (MemoVerb v : MemoVerb.values()) {
        if (text.contains("\"" + v.wire() + "\"")) {
          found.add(root.relativize(file) + ": \"" + v.wire() + "\"");
        }
      }
      return found;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
