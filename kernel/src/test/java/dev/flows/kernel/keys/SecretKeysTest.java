package dev.flows.kernel.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.Secrets;
import dev.flows.kernel.json.Jackson;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SecretKeysTest {
  private static final String CARD = "4111111111111111";
  private static final String KEY_A = key(1);
  private static final String KEY_B = key(2);

  private final Map<String, String> env = new HashMap<>();

  private static String key(int fill) {
    byte[] k = new byte[32];
    java.util.Arrays.fill(k, (byte) fill);
    return Base64.getEncoder().encodeToString(k);
  }

  private SecretKeys keys() {
    return new SecretKeys(n -> Optional.ofNullable(env.get(n)));
  }

  private static JsonNode args() throws Exception {
    return Jackson.mapper()
        .readTree("{\"card\":{\"number\":\"" + CARD + "\",\"cvc\":123},\"amount\":5}");
  }

  @Test
  void aSealedArgumentHoldsNoClearTextAndOpensToTheSameValue() throws Exception {
    env.put("K", KEY_A);
    SecretKeys keys = keys().declare("K", List.of());
    JsonNode sealed = keys.seal(args(), List.of("/card/number", "/card/cvc"), "here");

    assertThat(sealed.toString()).doesNotContain(CARD).doesNotContain("123");
    assertThat(SecretKeys.isSealed(sealed.at("/card/number").asText())).isTrue();
    assertThat(sealed.at("/amount").asInt()).isEqualTo(5);
    assertThat(keys.open(sealed, "here")).isEqualTo(args());
    assertThat(keys.open(sealed, "here").at("/card/cvc").isInt()).isTrue();
  }

  @Test
  void theSameValueSealsToTheSameBytesSoAReplayedCallHashesAlike() throws Exception {
    env.put("K", KEY_A);
    SecretKeys keys = keys().declare("K", List.of());
    JsonNode first = keys.seal(args(), List.of("/card/number"), "here");
    JsonNode again = keys.seal(args(), List.of("/card/number"), "here");
    ObjectNode other = (ObjectNode) args();
    ((ObjectNode) other.get("card")).put("number", "4000000000000002");

    assertThat(again).isEqualTo(first);
    assertThat(keys.seal(other, List.of("/card/number"), "here")).isNotEqualTo(first);
  }

  @Test
  void aValueSealedUnderTheOldKeyStillOpensAfterRotation() throws Exception {
    env.put("K", KEY_A);
    JsonNode sealed = keys().declare("K", List.of()).seal(args(), List.of("/card/number"), "x");
    env.put("K", KEY_B);
    env.put("K_OLD", KEY_A);
    SecretKeys rotated = keys().declare("K", List.of("K_OLD"));

    assertThat(rotated.open(sealed, "x")).isEqualTo(args());
    JsonNode resealed = rotated.seal(args(), List.of("/card/number"), "x");
    assertThat(resealed).isNotEqualTo(sealed);
    assertThat(resealed.at("/card/number").asText())
        .startsWith(SecretKeys.PREFIX)
        .isNotEqualTo(sealed.at("/card/number").asText());
  }

  @Test
  void sealingWithoutAKeyFailsSecretKeyMissingNamingTheVariable() throws Exception {
    assertThatThrownBy(() -> keys().seal(args(), List.of("/card/number"), "payments/charge"))
        .isInstanceOfSatisfying(
            FlowsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SECRET_KEY_MISSING))
        .hasMessageNotContaining(CARD);
    SecretKeys unset = keys().declare("FLOWS_SECRET_KEY", List.of());
    assertThatThrownBy(() -> unset.seal(args(), List.of("/card/number"), "payments/charge"))
        .isInstanceOfSatisfying(
            FlowsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SECRET_KEY_MISSING))
        .hasMessageContaining("FLOWS_SECRET_KEY");
  }

  @Test
  void openingAValueWhoseKeyIsGoneFailsSecretKeyMissing() throws Exception {
    env.put("K", KEY_A);
    JsonNode sealed = keys().declare("K", List.of()).seal(args(), List.of("/card/number"), "x");
    env.put("K", KEY_B);

    assertThatThrownBy(() -> keys().declare("K", List.of()).open(sealed, "x"))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.SECRET_KEY_MISSING));
  }

  @Test
  void aTamperedSealedValueDoesNotOpen() throws Exception {
    env.put("K", KEY_A);
    SecretKeys keys = keys().declare("K", List.of());
    ObjectNode sealed = (ObjectNode) keys.seal(args(), List.of("/card/number"), "x");
    String s = sealed.at("/card/number").asText();
    char last = s.charAt(s.length() - 1);
    ((ObjectNode) sealed.get("card"))
        .put("number", s.substring(0, s.length() - 1) + (last == 'A' ? 'B' : 'A'));

    assertThatThrownBy(() -> keys.open(sealed, "x"))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.SECRET_KEY_MISSING));
  }

  @Test
  void maskedDocumentsAndTextShowThreeStarsForEverySealedValue() throws Exception {
    env.put("K", KEY_A);
    JsonNode sealed = keys().declare("K", List.of()).seal(args(), List.of("/card/number"), "x");

    assertThat(SecretKeys.mask(sealed).at("/card/number").asText()).isEqualTo("***");
    assertThat(SecretKeys.mask(sealed).at("/amount").asInt()).isEqualTo(5);
    com.fasterxml.jackson.databind.node.ObjectNode quoted =
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
            .objectNode()
            .put("message", "sent " + sealed.at("/card/number").asText() + " twice");
    assertThat(SecretKeys.mask(quoted).path("message").asText()).isEqualTo("sent *** twice");
    assertThat(Secrets.redact("called with " + sealed))
        .doesNotContain(SecretKeys.PREFIX)
        .contains("\"***\"");
  }

  @Test
  void aPointerThatIsNotOneIsRefusedInvalidInput() {
    assertThatThrownBy(() -> SecretMarks.NONE.argument("card/number", "f.mcp(\"p\")"))
        .isInstanceOfSatisfying(
            FlowsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_INPUT));
    assertThatThrownBy(() -> SecretMarks.NONE.resultPart("", "f.mcp(\"p\")"))
        .isInstanceOf(FlowsException.class);
  }

  @Test
  void aKeyThatIsNotTwoHundredFiftySixBitsIsRefusedConfigInvalid() throws Exception {
    env.put("K", "too-short");
    SecretKeys keys = keys().declare("K", List.of());
    assertThatThrownBy(() -> keys.seal(args(), List.of("/card/number"), "x"))
        .isInstanceOfSatisfying(
            FlowsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID))
        .hasMessageNotContaining("too-short");
  }
}
