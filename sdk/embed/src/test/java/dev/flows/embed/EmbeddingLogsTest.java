package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.mcp.testkit.Jvm;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A service that embeds flows with nothing but flows-embed's own dependencies on its class path
 * prints no warning it did nothing to cause: no SLF4J "no providers", no Flyway or HikariCP INFO.
 */
class EmbeddingLogsTest {
  /** flows-embed's runtime class path, as Maven resolves it for a service that depends on it. */
  private static final Path RUNTIME_CLASSPATH = Path.of("target", "runtime.classpath");

  @Test
  void aPlainEmbeddingServicePrintsNothingOnStderrWhenItBuildsAndCloses() throws Exception {
    TestDatabase.Fresh db = TestDatabase.empty("embed_logs");
    String classPath =
        String.join(
            File.pathSeparator,
            Path.of("target", "classes").toAbsolutePath().toString(),
            Path.of("target", "test-classes").toAbsolutePath().toString(),
            Files.readString(RUNTIME_CLASSPATH, StandardCharsets.UTF_8).strip());
    Process p =
        new ProcessBuilder(
                List.of(
                    Jvm.java(),
                    "-XX:TieredStopAtLevel=1",
                    "-cp",
                    classPath,
                    QuietEmbedding.class.getName(),
                    db.jdbcUrl()))
            .start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("stderr: %s", err).isZero();
    assertThat(out).contains("closed");
    assertThat(err).as("stderr of a plain embedding service").isEmpty();
  }
}
