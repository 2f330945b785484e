package dev.flows.mcp.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.kernel.json.Jackson;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/** RFC 7523 client assertions: a short-lived JWT signed with the client's EC key (ES256). */
final class ClientAssertion {
  private static final ObjectMapper JSON = Jackson.mapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Assertions are single-use and checked right away; a short life limits replay. */
  private static final Duration LIFETIME = Duration.ofMinutes(5);

  private ClientAssertion() {}

  static String es256(String clientId, String audience, String pkcs8Pem, Instant now) {
    try {
      String b64 = pkcs8Pem.replaceAll("-----(BEGIN|END) [A-Z ]+-----", "").replaceAll("\\s", "");
      PrivateKey key =
          KeyFactory.getInstance("EC")
              .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64)));
      byte[] jti = new byte[16];
      RANDOM.nextBytes(jti);
      Map<String, Object> claims = new LinkedHashMap<>();
      claims.put("iss", clientId);
      claims.put("sub", clientId);
      claims.put("aud", audience);
      claims.put("iat", now.getEpochSecond());
      claims.put("exp", now.plus(LIFETIME).getEpochSecond());
      claims.put("jti", Base64.getUrlEncoder().withoutPadding().encodeToString(jti));
      String input =
          part(JSON.writeValueAsBytes(Map.of("alg", "ES256", "typ", "JWT")))
              + "."
              + part(JSON.writeValueAsBytes(claims));
      // JWS wants the raw r||s form, which the P1363 variant produces directly.
      Signature sig = Signature.getInstance("SHA256withECDSAinP1363Format");
      sig.initSign(key);
      sig.update(input.getBytes(StandardCharsets.US_ASCII));
      return input + "." + part(sig.sign());
    } catch (GeneralSecurityException | java.io.IOException | IllegalArgumentException e) {
      throw new IllegalStateException("cannot sign a client assertion: " + e.getMessage(), e);
    }
  }

  private static String part(byte[] b) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }
}
