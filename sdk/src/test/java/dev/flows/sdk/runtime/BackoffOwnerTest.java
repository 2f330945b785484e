package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.spec.Backoff;
import dev.flows.kernel.spec.BackoffPolicy;
import dev.flows.sdk.RetryPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The SDK's retry policy and a step's backoff are one rule: the defaults and formula agree. */
class BackoffOwnerTest {
  @Test
  void aDefaultRetryPolicyLowersToTheStepsDefaultBackoff() {
    assertThat(Lowering.backoff(RetryPolicy.attempts(3))).isEqualTo(BackoffPolicy.defaults());
  }

  @Test
  void theWaitARetryPolicyNamesIsTheStepBackoffWithoutJitter() {
    RetryPolicy p =
        RetryPolicy.attempts(20).backoff(Duration.ofMillis(70), 1.7, Duration.ofSeconds(9));
    BackoffPolicy noJitter = new BackoffPolicy(70, 9_000, 1.7, 0);
    for (int attempt = 1; attempt <= 20; attempt++) {
      assertThat(p.backoffAfter(attempt).toMillis())
          .as("attempt %d", attempt)
          .isCloseTo(
              Backoff.delayMs(noJitter, attempt, "k"), org.assertj.core.data.Offset.offset(1L));
    }
  }

  /** An exponential written anywhere else in main code is a second backoff that can drift. */
  @Test
  void onlyTheKernelsBackoffRaisesToAPower() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    try (Stream<Path> files = Files.walk(root)) {
      List<String> offenders =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(p -> p.toString().contains("/src/main/java/"))
              .filter(p -> !p.toString().contains("/target/"))
              .filter(p -> !p.getFileName().toString().equals("Backoff.java"))
              .filter(p -> read(p).contains("Math.pow("))
              .map(p -> root.relativize(p).toString())
              .toList();
      assertThat(offenders).isEmpty();
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
