package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;

/** The one-line refusal contract, asserted the same way everywhere. */
final class Refusals {
  private Refusals() {}

  /** One line {@code error <code>: ...} on stderr, no stack trace, the expected exit. */
  static void assertRefused(Cli.Result r, String code, int exit) {
    assertThat(r.exit()).as("exit code; stderr: %s", r.err()).isEqualTo(exit);
    assertThat(r.errLines()).as("stderr").hasSize(1);
    assertThat(r.errLines().get(0)).startsWith("error " + code + ": ").contains(" fix: ");
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  /** As {@link #assertRefused}, run with {@code --json}: stdout holds {@code {"error":{...}}}. */
  static void assertJsonRefused(Cli.Result r, String code, int exit) {
    assertRefused(r, code, exit);
    JsonNode e = r.json().path("error");
    assertThat(e.path("code").asText()).isEqualTo(code);
    assertThat(e.path("message").asText()).isNotBlank();
    assertThat(e.has("place")).isTrue();
    assertThat(e.path("fix").asText()).isNotBlank();
  }
}
