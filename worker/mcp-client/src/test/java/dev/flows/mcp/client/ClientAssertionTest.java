package dev.flows.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class ClientAssertionTest {

  @Test
  void anEs256AssertionVerifiesWithThePublicKeyAndCarriesTheClientAndAudience() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair keys = g.generateKeyPair();
    String pem =
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(keys.getPrivate().getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
    Instant now = Instant.parse("2026-11-30T00:00:00Z");

    String jwt = ClientAssertion.es256("client-7", "https://as.example/", pem, now);

    String[] parts = jwt.split("\\.");
    assertThat(parts).hasSize(3);
    Signature verify = Signature.getInstance("SHA256withECDSAinP1363Format");
    verify.initVerify(keys.getPublic());
    verify.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
    assertThat(verify.verify(Base64.getUrlDecoder().decode(parts[2]))).isTrue();
    JsonNode header = new ObjectMapper().readTree(Base64.getUrlDecoder().decode(parts[0]));
    JsonNode claims = new ObjectMapper().readTree(Base64.getUrlDecoder().decode(parts[1]));
    assertThat(header.path("alg").asText()).isEqualTo("ES256");
    assertThat(claims.path("iss").asText()).isEqualTo("client-7");
    assertThat(claims.path("sub").asText()).isEqualTo("client-7");
    assertThat(claims.path("aud").asText()).isEqualTo("https://as.example/");
    assertThat(claims.path("iat").asLong()).isEqualTo(now.getEpochSecond());
    assertThat(claims.path("exp").asLong()).isGreaterThan(now.getEpochSecond());
  }
}
