package dev.flows.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SecretsTest {
  private static final String MARKER = "S3cr3tMarker";

  @Test
  void aJdbcPasswordParameterIsMaskedWhereverItStandsInTheQuery() {
    assertThat(
            Secrets.redact(
                "cannot reach jdbc:postgresql://h:5432/db?user=flows&password=" + MARKER))
        .isEqualTo("cannot reach jdbc:postgresql://h:5432/db?user=flows&password=***");
    assertThat(
            Secrets.redact(
                "jdbc:postgresql://h/db?password=" + MARKER + "&sslmode=require as flows"))
        .isEqualTo("jdbc:postgresql://h/db?password=***&sslmode=require as flows");
    assertThat(Secrets.redact("jdbc:postgresql://h/db?user=a&sslpassword=" + MARKER))
        .doesNotContain(MARKER);
  }

  @Test
  void theUserInfoPasswordOfEveryUrlSchemeIsMaskedAndTheUserKept() {
    for (String scheme : List.of("postgres", "postgresql", "jdbc:postgresql", "https")) {
      assertThat(Secrets.redact("at " + scheme + "://flows:" + MARKER + "@h:5432/db; next"))
          .isEqualTo("at " + scheme + "://flows:***@h:5432/db; next");
    }
    assertThat(Secrets.redact("{\"url\":\"postgres://u:" + MARKER + "@h/db\"}"))
        .isEqualTo("{\"url\":\"postgres://u:***@h/db\"}");
  }

  @Test
  void aKnownSecretIsMaskedRawAndUrlEncoded() {
    assertThat(Secrets.redact("password is " + MARKER + "!", List.of(MARKER)))
        .isEqualTo("password is ***!");
    assertThat(Secrets.redact("p%3Ass and p:ss", List.of("p:ss"))).isEqualTo("*** and ***");
  }

  @Test
  void textWithoutSecretsIsUnchanged() {
    String plain = "jdbc:postgresql://localhost:5432/flows as flows (port 5432) user=flows";
    assertThat(Secrets.redact(plain, List.of("", " "))).isEqualTo(plain);
  }

  @Test
  void aPasswordParameterClosingAParenthesizedPlaceKeepsTheParenthesis() {
    assertThat(
            Secrets.redact(
                "cannot reach (at jdbc:postgresql://h/db?user=flows&password="
                    + MARKER
                    + ") fix: start it"))
        .isEqualTo(
            "cannot reach (at jdbc:postgresql://h/db?user=flows&password=***) fix: start it");
    assertThat(Secrets.redact("(at jdbc:postgresql://h/db?password=" + MARKER + ")"))
        .isEqualTo("(at jdbc:postgresql://h/db?password=***)");
    assertThat(Secrets.redact("(at postgres://u:" + MARKER + "@h/db)"))
        .isEqualTo("(at postgres://u:***@h/db)");
  }

  @Test
  void aPasswordHoldingAParenthesisIsMaskedWhole() {
    assertThat(Secrets.redact("jdbc:postgresql://h/db?password=a)b(c&user=x"))
        .isEqualTo("jdbc:postgresql://h/db?password=***&user=x");
  }
}
