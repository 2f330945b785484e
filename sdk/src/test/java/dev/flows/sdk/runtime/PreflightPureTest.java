package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.FlowsException;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PreflightPureTest {
  private final FlowsConfig config =
      FlowsConfigLoader.parse(
          Path.of("/p/flows.json"), "{\"mcp\": {\"tickets\": {\"command\": \"x\"}}}");

  @Test
  void aCleanFlowHasNoProblems() {
    FlowHeader h = FlowHeader.named("f").mcp("tickets").build();
    assertThat(Preflight.pure(h, config, Set.of("tickets"))).isEmpty();
  }

  @Test
  void aHeaderServerMissingFromFlowsJsonAndABodyServerMissingFromTheHeaderAreBothReported() {
    FlowHeader h = FlowHeader.named("f").mcp("tickets", "stripe").build();
    List<FlowsException> problems = Preflight.pure(h, config, Set.of("tickets", "linear"));
    assertThat(problems)
        .extracting(FlowsException::code)
        .containsOnly(ErrorCode.MCP_UNDECLARED_SERVER);
    assertThat(problems).hasSize(2);
    assertThat(problems.get(0).place()).contains("flow f tools.mcp[1]");
    assertThat(problems.get(0).getMessage()).contains("stripe").contains("/p/flows.json");
    assertThat(problems.get(1).getMessage()).contains("f.mcp(\"linear\")");
    assertThat(problems).allSatisfy(p -> assertThat(p.fix()).isPresent());
  }

  @Test
  void aHeaderModelNeitherInFlowsJsonNorGivenInCodeIsLlmUndeclaredModel() {
    FlowsConfig withModels =
        FlowsConfigLoader.parse(
            Path.of("/p/flows.json"),
            "{\"models\": {\"fast\": {\"provider\": \"openai\", \"model\": \"gpt-4o-mini\"}}}");
    FlowHeader h = FlowHeader.named("f").models("fast", "smart", "mine").build();
    List<FlowsException> problems = Preflight.pure(h, withModels, Set.of(), Set.of("mine"));
    assertThat(problems).hasSize(1);
    FlowsException p = problems.getFirst();
    assertThat(p.code()).isEqualTo(ErrorCode.LLM_UNDECLARED_MODEL);
    assertThat(p.place()).contains("flow f models[1]");
    assertThat(p.getMessage()).contains("smart").contains("/p/flows.json").contains("fast");
    assertThat(p.fix()).isPresent();
  }
}
