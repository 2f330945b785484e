package dev.flows.sdk.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.llm.LlmUsage;
import dev.flows.kernel.llm.ModelConfig;
import dev.flows.kernel.llm.ModelPrice;
import dev.flows.kernel.llm.ModelProvider;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpProtocol;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FlowsConfigLoaderTest {
  private static final Path FILE = Path.of("/work/x/flows.json");

  @Test
  void aStdioAndAnHttpServerAreReadWithTheirDefaults() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"mcp": {
              "tickets": {"command": "bin/tickets", "args": ["--x"], "env": ["HOME"],
                          "setEnv": {"MODE": "demo"}, "cwd": "srv"},
              "pay": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Team": "a"},
                      "auth": {"mode": "api-token", "tokenEnv": "PAY_TOKEN"},
                      "idempotencyKeys": true}
            }}
            """);
    McpServerConfig.Stdio t = (McpServerConfig.Stdio) c.server("tickets").orElseThrow().config();
    assertThat(t.command()).isEqualTo("bin/tickets");
    assertThat(t.args()).containsExactly("--x");
    assertThat(t.envAllowlist()).containsExactly("HOME");
    assertThat(t.env()).containsEntry("MODE", "demo");
    assertThat(t.cwd()).contains("/work/x/srv");
    assertThat(c.server("tickets").orElseThrow().honoursIdempotencyKeys()).isFalse();
    ServerEntry pay = c.server("pay").orElseThrow();
    assertThat(pay.honoursIdempotencyKeys()).isTrue();
    McpServerConfig.Http h = (McpServerConfig.Http) pay.config();
    assertThat(h.url().toString()).isEqualTo("http://127.0.0.1:9/mcp");
    McpAuth.ApiToken auth = (McpAuth.ApiToken) h.auth();
    assertThat(auth.headerName()).isEqualTo("Authorization");
    assertThat(auth.scheme()).contains("Bearer");
    assertThat(auth.token()).isEqualTo(new McpAuth.SecretSource.EnvVar("PAY_TOKEN"));
  }

  @Test
  void oauthClientCredentialsNamesTheSecretsVariable() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"mcp": {"crm": {"url": "https://crm.example/mcp", "auth": {"mode": "oauth",
              "grant": "client_credentials", "clientId": "flows", "clientSecretEnv": "CRM_SECRET",
              "tokenEndpointAuth": "client_secret_post", "scopes": ["read"]}}}}
            """);
    McpAuth.OAuth o =
        (McpAuth.OAuth) ((McpServerConfig.Http) c.server("crm").orElseThrow().config()).auth();
    McpAuth.OAuthGrant.ClientCredentials g = (McpAuth.OAuthGrant.ClientCredentials) o.grant();
    assertThat(g.auth())
        .isEqualTo(
            new McpAuth.ClientAuth.SecretPost(new McpAuth.SecretSource.EnvVar("CRM_SECRET")));
    assertThat(o.scopes()).containsExactly("read");
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        Arguments.of("not json", "{", "/"),
        Arguments.of("not an object", "[]", "/"),
        Arguments.of("unknown top-level key", "{\"servers\": {}}", "/servers"),
        Arguments.of("mcp not an object", "{\"mcp\": []}", "/mcp"),
        Arguments.of("server not an object", "{\"mcp\": {\"a\": 1}}", "/mcp/a"),
        Arguments.of(
            "both shapes",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"url\": \"http://h/mcp\"}}}",
            "/mcp/a"),
        Arguments.of("neither shape", "{\"mcp\": {\"a\": {\"args\": []}}}", "/mcp/a"),
        Arguments.of(
            "unknown stdio key",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"bogus\": 1}}}",
            "/mcp/a/bogus"),
        Arguments.of("empty command", "{\"mcp\": {\"a\": {\"command\": \"\"}}}", "/mcp/a/command"),
        Arguments.of(
            "args not strings",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"args\": [1]}}}",
            "/mcp/a/args/0"),
        Arguments.of(
            "bad env name",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"env\": [\"A-B\"]}}}",
            "/mcp/a/env/0"),
        Arguments.of(
            "duplicate env name",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"env\": [\"A\", \"A\"]}}}",
            "/mcp/a/env/1"),
        Arguments.of(
            "bad url scheme", "{\"mcp\": {\"a\": {\"url\": \"ftp://h/x\"}}}", "/mcp/a/url"),
        Arguments.of(
            "url with userinfo",
            "{\"mcp\": {\"a\": {\"url\": \"http://u:p@h/mcp\"}}}",
            "/mcp/a/url"),
        Arguments.of(
            "url with fragment", "{\"mcp\": {\"a\": {\"url\": \"http://h/mcp#x\"}}}", "/mcp/a/url"),
        Arguments.of(
            "unknown http key",
            "{\"mcp\": {\"a\": {\"url\": \"http://h/mcp\", \"env\": []}}}",
            "/mcp/a/env"),
        Arguments.of(
            "a result limit below the smallest",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"limits\": {\"maxResultBytes\": 100}}}}",
            "/mcp/a/limits/maxResultBytes"),
        Arguments.of(
            "a result limit that is not a number",
            "{\"mcp\": {\"a\": {\"url\": \"http://h/mcp\", \"limits\": {\"maxResultBytes\": \"4M\"}}}}",
            "/mcp/a/limits/maxResultBytes"),
        Arguments.of(
            "an unknown limit",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"limits\": {\"maxTools\": 5}}}}",
            "/mcp/a/limits/maxTools"),
        Arguments.of(
            "unknown auth mode",
            "{\"mcp\": {\"a\": {\"url\": \"http://h/mcp\", \"auth\": {\"mode\": \"magic\"}}}}",
            "/mcp/a/auth/mode"),
        Arguments.of(
            "inline token instead of a variable name",
            "{\"mcp\": {\"a\": {\"url\": \"http://h/mcp\", \"auth\": {\"mode\": \"api-token\","
                + " \"tokenEnv\": \"sk_live_123-abc\"}}}}",
            "/mcp/a/auth/tokenEnv"),
        Arguments.of(
            "api-token without a source",
            "{\"mcp\": {\"a\": {\"url\": \"http://h/mcp\", \"auth\": {\"mode\": \"api-token\"}}}}",
            "/mcp/a/auth"),
        Arguments.of(
            "unknown task use",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"tasks\": \"sometimes\"}}}",
            "/mcp/a/tasks"),
        Arguments.of(
            "idempotencyKeys not boolean",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"idempotencyKeys\": \"yes\"}}}",
            "/mcp/a/idempotencyKeys"),
        Arguments.of(
            "unknown protocol revision",
            "{\"mcp\": {\"a\": {\"command\": \"x\", \"protocol\": \"2024-01-01\"}}}",
            "/mcp/a/protocol"),
        Arguments.of("bad server name", "{\"mcp\": {\"a/b\": {\"command\": \"x\"}}}", "/mcp/a~1b"),
        Arguments.of(
            "unknown model provider",
            "{\"models\": {\"m\": {\"provider\": \"cohere\", \"model\": \"x\"}}}",
            "/models/m/provider"),
        Arguments.of(
            "model without a model id",
            "{\"models\": {\"m\": {\"provider\": \"openai\"}}}",
            "/models/m/model"),
        Arguments.of(
            "openai-compatible without a baseUrl",
            "{\"models\": {\"m\": {\"provider\": \"openai-compatible\", \"model\": \"x\"}}}",
            "/models/m"),
        Arguments.of(
            "an API key instead of its variable's name",
            "{\"models\": {\"m\": {\"provider\": \"openai\", \"model\": \"x\","
                + " \"apiKeyEnv\": \"sk-proj-abc123\"}}}",
            "/models/m/apiKeyEnv"),
        Arguments.of(
            "a timeout that is not a positive number",
            "{\"models\": {\"m\": {\"provider\": \"openai\", \"model\": \"x\","
                + " \"timeoutMs\": -5}}}",
            "/models/m/timeoutMs"),
        Arguments.of(
            "unknown model key",
            "{\"models\": {\"m\": {\"provider\": \"openai\", \"model\": \"x\", \"key\": \"k\"}}}",
            "/models/m/key"),
        Arguments.of(
            "a negative price",
            "{\"models\": {\"m\": {\"provider\": \"openai\", \"model\": \"x\","
                + " \"price\": {\"inputPerMTokens\": -1, \"outputPerMTokens\": 1}}}}",
            "/models/m/price/inputPerMTokens"),
        Arguments.of(
            "a price without its output price",
            "{\"models\": {\"m\": {\"provider\": \"openai\", \"model\": \"x\","
                + " \"price\": {\"inputPerMTokens\": 0.15}}}}",
            "/models/m/price/outputPerMTokens"),
        Arguments.of(
            "a price as text",
            "{\"models\": {\"m\": {\"provider\": \"openai\", \"model\": \"x\","
                + " \"price\": {\"inputPerMTokens\": \"0.15\", \"outputPerMTokens\": 1}}}}",
            "/models/m/price/inputPerMTokens"),
        Arguments.of(
            "an unknown price key",
            "{\"models\": {\"m\": {\"provider\": \"openai\", \"model\": \"x\","
                + " \"price\": {\"inputPerMTokens\": 1, \"outputPerMTokens\": 1, \"cached\": 1}}}}",
            "/models/m/price/cached"));
  }

  @Test
  void modelsAreReadWithTheirProviderKeyVariableAndTimeout() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"models": {
              "fast": {"provider": "openai", "model": "gpt-4o-mini", "apiKeyEnv": "OPENAI_API_KEY"},
              "smart": {"provider": "anthropic", "model": "claude-sonnet-4-5",
                        "apiKeyEnv": "ANTHROPIC_API_KEY", "timeoutMs": 120000},
              "local": {"provider": "ollama", "model": "llama3.2"},
              "proxy": {"provider": "openai-compatible", "model": "m",
                        "baseUrl": "http://127.0.0.1:8080/v1"}
            }}
            """);
    ModelConfig fast = c.model("fast").orElseThrow();
    assertThat(fast.provider()).isEqualTo(ModelProvider.OPENAI);
    assertThat(fast.model()).isEqualTo("gpt-4o-mini");
    assertThat(fast.apiKeyEnv()).contains("OPENAI_API_KEY");
    assertThat(fast.timeout()).isEqualTo(ModelConfig.DEFAULT_TIMEOUT);
    assertThat(c.model("smart").orElseThrow().timeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(c.model("local").orElseThrow().baseUrl()).isEmpty();
    assertThat(c.model("proxy").orElseThrow().baseUrl().orElseThrow().toString())
        .isEqualTo("http://127.0.0.1:8080/v1");
    assertThat(c.mcp()).isEmpty();
    assertThat(fast.price()).isEmpty();
  }

  @Test
  void aModelsPriceIsReadInDollarsPerMillionTokens() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"models": {"fast": {"provider": "openai", "model": "gpt-4o-mini",
              "price": {"inputPerMTokens": 0.15, "outputPerMTokens": 0.6}}}}
            """);
    ModelPrice p = c.model("fast").orElseThrow().price().orElseThrow();
    assertThat(p.inputPerMTokens()).isEqualByComparingTo("0.15");
    assertThat(p.outputPerMTokens()).isEqualByComparingTo("0.6");
    assertThat(p.cost(new LlmUsage(1_000_000, 500_000))).isEqualByComparingTo("0.45");
  }

  @ParameterizedTest(name = "{0} is refused at {2}")
  @MethodSource("malformed")
  void aMalformedShapeIsRefusedWithItsPointerAndAFix(String what, String json, String pointer) {
    assertThatThrownBy(() -> FlowsConfigLoader.parse(FILE, json))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID);
              assertThat(e.place()).contains(FILE + "#" + pointer);
              assertThat(e.fix()).isPresent();
            });
  }

  @Test
  void theNearestFileWalkingUpWinsWithoutMerging(@TempDir Path dir) throws IOException {
    Path inner = Files.createDirectories(dir.resolve("a/b"));
    Files.writeString(dir.resolve("flows.json"), "{\"mcp\": {\"outer\": {\"command\": \"x\"}}}");
    Files.writeString(dir.resolve("a/flows.json"), "{\"mcp\": {\"inner\": {\"command\": \"y\"}}}");
    Path flow = Files.writeString(inner.resolve("x.flow.java"), "");
    FlowsConfig c = FlowsConfigLoader.loadNearest(flow);
    assertThat(c.mcp()).containsOnlyKeys("inner");
    assertThat(c.file()).contains(dir.resolve("a/flows.json").toAbsolutePath());
  }

  @Test
  void aServerMayLimitItsLargestResultAndTheLimitSurvivesFreezing() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"mcp": {
              "small": {"command": "x", "limits": {"maxResultBytes": 65536}},
              "any": {"url": "http://127.0.0.1:9/mcp"}
            }}
            """);
    McpServerConfig small = c.server("small").orElseThrow().config();
    assertThat(small.maxResultBytes()).hasValue(65536);
    assertThat(small.limits(McpClientConfig.DEFAULTS).maxResultBytes()).isEqualTo(65536);
    assertThat(McpServerConfigJson.read(McpServerConfigJson.write(small))).isEqualTo(small);
    McpServerConfig any = c.server("any").orElseThrow().config();
    assertThat(any.limits(McpClientConfig.DEFAULTS).maxResultBytes())
        .isEqualTo(McpClientConfig.DEFAULT_MAX_RESULT_BYTES);
    assertThat(McpServerConfigJson.write(any).has("limits")).isFalse();
  }

  @Test
  void aServerMayPinItsProtocolRevisionAndIsAutoWithoutOne() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"mcp": {
              "old": {"command": "x", "protocol": "2025-11-25"},
              "new": {"url": "http://127.0.0.1:9/mcp", "protocol": "2026-07-28"},
              "any": {"command": "y"}
            }}
            """);
    assertThat(c.server("old").orElseThrow().config().protocol())
        .isEqualTo(McpProtocol.V2025_11_25);
    assertThat(c.server("new").orElseThrow().config().protocol())
        .isEqualTo(McpProtocol.V2026_07_28);
    assertThat(c.server("any").orElseThrow().config().protocol()).isEqualTo(McpProtocol.AUTO);
  }

  @Test
  void aServerMayRequireOrForbidTasksAndIsAutomaticWithoutAChoice() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"mcp": {
              "jobs": {"command": "x", "tasks": "required"},
              "web": {"url": "http://127.0.0.1:9/mcp", "tasks": "forbidden"},
              "any": {"command": "y"}
            }}
            """);
    assertThat(c.server("jobs").orElseThrow().tasks()).contains(dev.flows.sdk.TaskUse.REQUIRED);
    assertThat(c.server("web").orElseThrow().tasks()).contains(dev.flows.sdk.TaskUse.FORBIDDEN);
    assertThat(c.server("any").orElseThrow().tasks()).isEmpty();
  }

  @Test
  void enterpriseManagedAuthorizationNamesTheIdTokenVariable() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"mcp": {"crm": {"url": "https://crm.example/mcp", "auth": {"mode": "oauth",
              "grant": "enterprise_managed", "clientId": "flows", "clientSecretEnv": "CRM_SECRET",
              "idpTokenEndpoint": "https://idp.example/token", "idTokenEnv": "IDP_ID_TOKEN"}}}}
            """);
    McpAuth.OAuth o =
        (McpAuth.OAuth) ((McpServerConfig.Http) c.server("crm").orElseThrow().config()).auth();
    McpAuth.OAuthGrant.EnterpriseManaged g = (McpAuth.OAuthGrant.EnterpriseManaged) o.grant();
    assertThat(g.idToken()).isEqualTo(new McpAuth.SecretSource.EnvVar("IDP_ID_TOKEN"));
    assertThat(g.idpTokenEndpoint()).hasToString("https://idp.example/token");
    assertThat(g.auth()).isInstanceOf(McpAuth.ClientAuth.SecretBasic.class);
  }

  @Test
  void noFileMeansNoServers(@TempDir Path dir) {
    assertThat(FlowsConfigLoader.loadNearest(dir).mcp()).isEmpty();
  }
}
