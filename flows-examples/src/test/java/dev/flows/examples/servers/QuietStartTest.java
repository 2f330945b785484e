package dev.flows.examples.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An example server starts without a warning its user did nothing to cause. */
class QuietStartTest {
  @Test
  void theModernServerOfAnExampleStartsWithoutARequestStateKeyWarning() {
    PrintStream before = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      ModernTools.server("quiet", "1.0.0", List.of());
    } finally {
      System.setErr(before);
    }
    assertThat(err.toString(StandardCharsets.UTF_8))
        .doesNotContain("HmacRequestStateCodec")
        .doesNotContain("WARN");
  }
}
