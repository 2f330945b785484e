package dev.flows.sdk.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpAuthJson;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * MCP server auth has one codec ({@link McpAuthJson}) with two forms: the one a user writes in
 * flows.json and the one frozen into a run's journal. Every auth the user form can say survives the
 * frozen form unchanged, and the user form's refusals keep their codes, places and messages.
 */
class McpAuthFormsTest {
  private static final Path FILE = Path.of("/cfg/flows.json");

  private static McpAuth userAuth(String auth) {
    String text =
        "{\"mcp\": {\"a\": {\"url\": \"https://h.example/mcp\", \"auth\": " + auth + "}}}";
    McpServerConfig.Http h =
        (McpServerConfig.Http)
            FlowsConfigLoader.parse(FILE, text).server("a").orElseThrow().config();
    return h.auth();
  }

  static Stream<String> userForms() {
    return Stream.of(
        "{\"mode\": \"none\"}",
        "{\"mode\": \"api-token\", \"tokenEnv\": \"PAY_TOKEN\"}",
        "{\"mode\": \"api-token\", \"header\": \"X-Key\", \"scheme\": \"\", \"provider\": \"vault\"}",
        "{\"mode\": \"api-token\", \"header\": \"X-Key\", \"scheme\": \"Token\", \"tokenEnv\": \"T\"}",
        "{\"mode\": \"oauth\", \"grant\": \"provided\", \"provider\": \"p1\", \"scopes\": [\"a\"]}",
        "{\"mode\": \"oauth\", \"grant\": \"client_credentials\", \"clientId\": \"c\","
            + " \"clientSecretEnv\": \"S\", \"scopes\": [\"read\", \"write\"]}",
        "{\"mode\": \"oauth\", \"grant\": \"client_credentials\", \"clientId\": \"c\","
            + " \"clientSecretEnv\": \"S\", \"tokenEndpointAuth\": \"client_secret_post\"}",
        "{\"mode\": \"oauth\", \"grant\": \"client_credentials\", \"clientId\": \"c\","
            + " \"privateKeyEnv\": \"KEY\"}",
        "{\"mode\": \"oauth\", \"grant\": \"client_credentials\", \"clientId\": \"c\"}",
        "{\"mode\": \"oauth\", \"grant\": \"enterprise_managed\", \"clientId\": \"c\","
            + " \"clientSecretEnv\": \"S\", \"idpTokenEndpoint\": \"https://idp.example/token\","
            + " \"idTokenEnv\": \"ID\"}",
        "{\"mode\": \"oauth\", \"grant\": \"enterprise_managed\", \"clientId\": \"c\","
            + " \"idpTokenEndpoint\": \"https://idp.example/token\", \"idTokenProvider\": \"sso\"}",
        "{\"mode\": \"oauth\", \"grant\": \"authorization_code\", \"clientId\": \"c\","
            + " \"clientSecretEnv\": \"S\", \"redirectUri\": \"http://127.0.0.1:9/cb\","
            + " \"completer\": \"browser\"}",
        "{\"mode\": \"oauth\", \"grant\": \"authorization_code\", \"clientIdUrl\":"
            + " \"https://me.example/client.json\", \"clientName\": \"mine\", \"redirectUri\":"
            + " \"http://127.0.0.1:9/cb\", \"completer\": \"browser\"}",
        "{\"mode\": \"oauth\", \"grant\": \"authorization_code\", \"redirectUri\":"
            + " \"http://127.0.0.1:9/cb\", \"completer\": \"browser\"}");
  }

  @ParameterizedTest
  @MethodSource("userForms")
  void everyAuthTheUserFormSaysSurvivesTheFrozenFormUnchanged(String form) {
    McpAuth auth = userAuth(form);

    assertThat(McpAuthJson.read(McpAuthJson.write(auth))).isEqualTo(auth);
    McpServerConfig.Http frozen =
        (McpServerConfig.Http)
            McpServerConfigJson.read(
                McpServerConfigJson.write(
                    FlowsConfigLoader.parse(
                            FILE,
                            "{\"mcp\": {\"a\": {\"url\": \"https://h.example/mcp\", \"auth\": "
                                + form
                                + "}}}")
                        .server("a")
                        .orElseThrow()
                        .config()));
    assertThat(frozen.auth()).isEqualTo(auth);
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(
            "{\"mode\": \"magic\"}",
            "/mcp/a/auth/mode",
            "flows.json unknown auth mode 'magic'",
            "use one of none, api-token, oauth"),
        Arguments.of(
            "{\"mode\": 3}",
            "/mcp/a/auth/mode",
            "flows.json must be a string",
            "write \"mode\": \"...\""),
        Arguments.of(
            "\"none\"", "/mcp/a/auth", "flows.json must be a JSON object", "write {...} here"),
        Arguments.of(
            "{\"mode\": \"none\", \"tokenEnv\": \"T\"}",
            "/mcp/a/auth/tokenEnv",
            "flows.json has unknown key \"tokenEnv\"",
            "remove it; allowed here: mode"),
        Arguments.of(
            "{\"mode\": \"api-token\", \"tokenEnv\": \"sk_live_123-abc\"}",
            "/mcp/a/auth/tokenEnv",
            "flows.json must name an environment variable, not hold a secret",
            "write the variable's name (^[A-Za-z_][A-Za-z0-9_]*$) and export the secret there"),
        Arguments.of(
            "{\"mode\": \"api-token\"}",
            "/mcp/a/auth",
            "flows.json needs exactly one of \"tokenEnv\" or \"provider\"",
            "name the environment variable holding the token (never the token itself)"),
        Arguments.of(
            "{\"mode\": \"api-token\", \"tokenEnv\": \"T\", \"provider\": \"p\"}",
            "/mcp/a/auth",
            "flows.json needs exactly one of \"tokenEnv\" or \"provider\"",
            "name the environment variable holding the token (never the token itself)"),
        Arguments.of(
            "{\"mode\": \"oauth\", \"grant\": \"password\"}",
            "/mcp/a/auth/grant",
            "flows.json unknown oauth grant 'password'",
            "use one of provided, client_credentials, authorization_code, enterprise_managed"),
        Arguments.of(
            "{\"mode\": \"oauth\"}",
            "/mcp/a/auth/grant",
            "flows.json is missing \"grant\"",
            "add \"grant\""),
        Arguments.of(
            "{\"mode\": \"oauth\", \"grant\": \"client_credentials\", \"clientId\": \"c\","
                + " \"tokenEndpointAuth\": \"mtls\"}",
            "/mcp/a/auth/tokenEndpointAuth",
            "flows.json unknown token endpoint auth method 'mtls'",
            "use client_secret_basic, client_secret_post, private_key_jwt or none"),
        Arguments.of(
            "{\"mode\": \"oauth\", \"grant\": \"client_credentials\", \"clientId\": \"c\","
                + " \"tokenEndpointAuth\": \"client_secret_basic\"}",
            "/mcp/a/auth/clientSecretEnv",
            "flows.json is missing \"clientSecretEnv\"",
            "add \"clientSecretEnv\""),
        Arguments.of(
            "{\"mode\": \"oauth\", \"grant\": \"provided\", \"provider\": \"p\", \"clientId\": \"c\"}",
            "/mcp/a/auth/clientId",
            "flows.json has unknown key \"clientId\"",
            "remove it; allowed here: grant, mode, provider, scopes"),
        Arguments.of(
            "{\"mode\": \"oauth\", \"grant\": \"enterprise_managed\", \"clientId\": \"c\","
                + " \"idpTokenEndpoint\": \"ftp://idp/t\", \"idTokenEnv\": \"ID\"}",
            "/mcp/a/auth/idpTokenEndpoint",
            "flows.json must be http or https",
            "write e.g. https://mcp.example.com/mcp"),
        Arguments.of(
            "{\"mode\": \"oauth\", \"grant\": \"provided\", \"provider\": \"p\", \"scopes\": [1]}",
            "/mcp/a/auth/scopes/0",
            "flows.json must be a string",
            "write \"...\""));
  }

  @ParameterizedTest
  @MethodSource("refusals")
  void theUserFormRefusesWithItsCodePlaceMessageAndFix(
      String auth, String pointer, String message, String fix) {
    String text =
        "{\"mcp\": {\"a\": {\"url\": \"https://h.example/mcp\", \"auth\": " + auth + "}}}";
    FlowsException e =
        catchThrowableOfType(FlowsException.class, () -> FlowsConfigLoader.parse(FILE, text));

    assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID);
    assertThat(e.place()).contains(FILE + "#" + pointer);
    assertThat(e.getMessage()).isEqualTo(message);
    assertThat(e.fix()).contains(fix);
  }
}
