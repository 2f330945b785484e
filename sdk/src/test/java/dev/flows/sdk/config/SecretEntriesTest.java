package dev.flows.sdk.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.kernel.keys.SecretMarks;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretEntriesTest {
  private static final Path FILE = Path.of("/work/x/flows.json");

  @Test
  void theKeyVariablesAndEachToolsSecretPointersAreRead() {
    FlowsConfig c =
        FlowsConfigLoader.parse(
            FILE,
            """
            {"secrets": {"keyEnv": "FLOWS_SECRET_KEY", "oldKeyEnvs": ["FLOWS_SECRET_KEY_OLD"]},
             "mcp": {"payments": {"url": "http://127.0.0.1:9/mcp",
               "secrets": {"charge": {"arguments": ["/card/number", "/card/cvc"],
                                      "result": ["/structuredContent/token"]}}}}}
            """);

    assertThat(c.secretKeys().orElseThrow())
        .isEqualTo(
            new FlowsConfig.SecretKeyEnvs("FLOWS_SECRET_KEY", List.of("FLOWS_SECRET_KEY_OLD")));
    assertThat(c.server("payments").orElseThrow().secrets())
        .isEqualTo(
            Map.of(
                "charge",
                new SecretMarks(
                    List.of("/card/number", "/card/cvc"), List.of("/structuredContent/token"))));
  }

  @Test
  void aFileWithoutSecretsHasNoKeyVariablesAndNoMarks() {
    FlowsConfig c = FlowsConfigLoader.parse(FILE, "{\"mcp\": {\"t\": {\"command\": \"bin/t\"}}}");

    assertThat(c.secretKeys()).isEmpty();
    assertThat(c.server("t").orElseThrow().secrets()).isEmpty();
  }

  @Test
  void aKeyWrittenWhereItsVariableNameBelongsIsRefusedWithItsPointer() {
    assertThatThrownBy(
            () ->
                FlowsConfigLoader.parse(
                    FILE, "{\"secrets\": {\"keyEnv\": \"q1w2e3r4t5y6u7i8o9p0+/==\"}}"))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID);
              assertThat(e.place().orElse("") + e.getMessage()).contains("/secrets/keyEnv");
            });
  }

  @Test
  void aMarkThatIsNotAJsonPointerIsRefusedConfigInvalidAtTheTool() {
    assertThatThrownBy(
            () ->
                FlowsConfigLoader.parse(
                    FILE,
                    """
                    {"mcp": {"t": {"command": "bin/t",
                      "secrets": {"echo": {"arguments": ["text"]}}}}}
                    """))
        .isInstanceOfSatisfying(
            FlowsException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID);
              assertThat(e.place().orElse("") + e.getMessage()).contains("/mcp/t/secrets/echo");
            });
  }
}
