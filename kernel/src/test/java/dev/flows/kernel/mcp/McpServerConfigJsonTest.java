package dev.flows.kernel.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.mcp.McpAuth.OAuthGrant;
import dev.flows.kernel.mcp.McpAuth.SecretSource;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class McpServerConfigJsonTest {
  @Test
  void everyConfigShapeRoundTripsThroughItsFrozenForm() {
    List<McpServerConfig> all =
        List.of(
            new McpServerConfig.Stdio(
                "t", "node", List.of("a"), List.of("HOME"), Map.of("X", "1"), Optional.of("/w")),
            new McpServerConfig.Http(
                "h", URI.create("http://127.0.0.1:1/mcp"), Map.of("A", "b"), new McpAuth.None()),
            new McpServerConfig.Http(
                "k",
                URI.create("https://x/mcp"),
                Map.of(),
                new McpAuth.ApiToken("X-Key", Optional.empty(), new SecretSource.EnvVar("KEY"))),
            new McpServerConfig.Http(
                "o",
                URI.create("https://x/mcp"),
                Map.of(),
                new McpAuth.OAuth(
                    new OAuthGrant.ClientCredentials(
                        "id",
                        new McpAuth.ClientAuth.SecretPost(new SecretSource.Provider("vault"))),
                    List.of("read"))),
            new McpServerConfig.Http(
                "p",
                URI.create("https://x/mcp"),
                Map.of(),
                new McpAuth.OAuth(
                    new OAuthGrant.AuthorizationCode(
                        new McpAuth.ClientRegistration.PreRegistered(
                            "id", new McpAuth.ClientAuth.NoSecret()),
                        "http://cb",
                        "headless"),
                    List.of())),
            new McpServerConfig.Http(
                "d",
                URI.create("https://x/mcp"),
                Map.of(),
                new McpAuth.OAuth(
                    new OAuthGrant.AuthorizationCode(
                        new McpAuth.ClientRegistration.Dynamic("flows"), "http://cb", "headless"),
                    List.of("a"))),
            new McpServerConfig.Http(
                "e",
                URI.create("https://x/mcp"),
                Map.of(),
                new McpAuth.OAuth(
                    new OAuthGrant.EnterpriseManaged(
                        "id",
                        new McpAuth.ClientAuth.SecretBasic(new SecretSource.EnvVar("S")),
                        URI.create("https://idp/token"),
                        new SecretSource.EnvVar("ID_TOKEN")),
                    List.of())),
            new McpServerConfig.Stdio(
                    "pinned", "node", List.of(), List.of(), Map.of(), Optional.empty())
                .withProtocol(McpProtocol.V2025_11_25),
            new McpServerConfig.Http(
                    "modern", URI.create("http://h/mcp"), Map.of(), new McpAuth.None())
                .withProtocol(McpProtocol.V2026_07_28));
    for (McpServerConfig c : all) {
      assertThat(McpServerConfigJson.read(McpServerConfigJson.write(c))).isEqualTo(c);
    }
  }

  @Test
  void anUnpinnedServerFreezesAsItAlwaysDidWithoutAProtocolKey() {
    McpServerConfig c =
        new McpServerConfig.Stdio("t", "node", List.of(), List.of(), Map.of(), Optional.empty());
    assertThat(McpServerConfigJson.write(c).has("protocol")).isFalse();
    assertThat(
            McpServerConfigJson.write(
                    ((McpServerConfig.Stdio) c).withProtocol(McpProtocol.V2026_07_28))
                .path("protocol")
                .asText())
        .isEqualTo("2026-07-28");
  }

  @Test
  void theFrozenFormNamesTheSecretsVariableButHoldsNoSecret() {
    McpServerConfig c =
        new McpServerConfig.Http(
            "k",
            URI.create("https://x/mcp"),
            Map.of(),
            new McpAuth.ApiToken(
                "Authorization", Optional.of("Bearer"), new SecretSource.EnvVar("PAY_TOKEN")));
    assertThat(McpServerConfigJson.write(c).toString()).contains("PAY_TOKEN");
  }
}
