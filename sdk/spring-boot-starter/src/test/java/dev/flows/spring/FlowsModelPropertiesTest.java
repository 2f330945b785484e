package dev.flows.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.embed.Flows;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.mcp.testkit.ScriptedModel;
import dev.flows.mcp.testkit.ScriptedModelServer;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.context.properties.ConfigurationPropertiesReportEndpoint;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Models declared by {@code flows.models.*} properties, called by {@code f.llm} in a context. */
class FlowsModelPropertiesTest {
  private static final TestDatabase.Fresh DB = TestDatabase.fresh("starter_models");

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(FlowsAutoConfiguration.class))
          .withBean(DataSource.class, DB::dataSource);

  record Name(String name) {}

  record Greeting(String text) {}

  /** Asks the model {@code small} to greet its input's name. */
  static final class Greeter implements Flow<Name, Greeting> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("greeter").models("small").build();
    }

    @Override
    public Greeting run(Ctx f, Name input) {
      return new Greeting(f.llm("small").system("Greet briefly.").user(input.name()).call().text());
    }
  }

  @Test
  void aFlowCallingAModelDeclaredOnlyByPropertiesIsAnsweredByThatModelWithItsApiKey()
      throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(ScriptedModel.of(ScriptedModel.Turn.text("Hi Ada", 12, 2)))) {
      runner
          .withBean(Greeter.class, Greeter::new)
          .withPropertyValues(
              "flows.models.small.provider=openai-compatible",
              "flows.models.small.model=scripted",
              "flows.models.small.base-url=" + server.baseUrl(),
              "flows.models.small.api-key=sk-from-properties",
              "flows.models.small.timeout=20s")
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                Flows flows = context.getBean(Flows.class);
                assertThat(
                        flows.start(Greeter.class, new Name("Ada")).result(Duration.ofSeconds(60)))
                    .isEqualTo(new Greeting("Hi Ada"));
              });
      assertThat(server.requests()).hasSize(1);
      assertThat(server.requests().getFirst().path("messages").toString())
          .contains("Greet briefly.")
          .contains("Ada");
      assertThat(server.authorizations()).containsExactly("Bearer sk-from-properties");
    }
  }

  @Test
  void aModelsApiKeyEnvNamesAPropertyOfTheApplication() throws Exception {
    try (ScriptedModelServer server =
        ScriptedModelServer.start(ScriptedModel.of(ScriptedModel.Turn.text("Hi Bo", 12, 2)))) {
      runner
          .withBean(Greeter.class, Greeter::new)
          .withPropertyValues(
              "flows.models.small.provider=openai-compatible",
              "flows.models.small.model=scripted",
              "flows.models.small.base-url=" + server.baseUrl(),
              "flows.models.small.api-key-env=SCRIPTED_KEY",
              "SCRIPTED_KEY=sk-from-the-environment")
          .run(
              context ->
                  assertThat(
                          context
                              .getBean(Flows.class)
                              .start(Greeter.class, new Name("Bo"))
                              .result(Duration.ofSeconds(60)))
                      .isEqualTo(new Greeting("Hi Bo")));
      assertThat(server.authorizations()).containsExactly("Bearer sk-from-the-environment");
    }
  }

  @Test
  void theApiKeyIsNeverPrintedWithTheProperties() {
    runner
        .withPropertyValues(
            "flows.models.small.provider=openai",
            "flows.models.small.model=gpt-4o-mini",
            "flows.models.small.api-key=sk-secret-value")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              FlowsProperties p = context.getBean(FlowsProperties.class);
              assertThat(p.models().get("small").apiKey()).isEqualTo("sk-secret-value");
              assertThat(p.toString()).doesNotContain("sk-secret-value").contains("apiKey=******");
            });
  }

  @Test
  void actuatorsConfigpropsMasksTheApiKeyEvenWhenItShowsValues() {
    runner
        .withPropertyValues(
            "flows.models.small.provider=openai",
            "flows.models.small.model=gpt-4o-mini",
            "flows.models.small.api-key=sk-secret-value")
        .run(
            context -> {
              ConfigurationPropertiesReportEndpoint endpoint =
                  new ConfigurationPropertiesReportEndpoint(
                      context.getBeanProvider(SanitizingFunction.class).orderedStream().toList(),
                      Show.ALWAYS);
              endpoint.setApplicationContext(context);
              String report =
                  endpoint
                      .configurationPropertiesWithPrefix("flows")
                      .getContexts()
                      .values()
                      .stream()
                      .flatMap(c -> c.getBeans().values().stream())
                      .map(b -> b.getProperties().toString())
                      .reduce("", String::concat);
              assertThat(report)
                  .contains("gpt-4o-mini")
                  .contains("apiKey=******")
                  .doesNotContain("sk-secret-value");
            });
  }

  @Test
  void aModelWithoutAProviderStopsTheContextNamingItsProperty() {
    runner
        .withPropertyValues("flows.models.small.model=gpt-4o-mini")
        .run(
            context ->
                assertThat(FlowsAutoConfigurationTest.flowsError(context.getStartupFailure()))
                    .isInstanceOfSatisfying(
                        FlowsError.class,
                        e -> {
                          assertThat(e.code()).isEqualTo("config_invalid");
                          assertThat(e.place()).hasValue("flows.models.small");
                        }));
  }

  @Test
  void anUnknownProviderIsRefusedListingTheKnownOnes() {
    runner
        .withPropertyValues("flows.models.small.provider=mistral", "flows.models.small.model=large")
        .run(
            context ->
                assertThat(FlowsAutoConfigurationTest.flowsError(context.getStartupFailure()))
                    .isInstanceOfSatisfying(
                        FlowsError.class,
                        e -> {
                          assertThat(e.code()).isEqualTo("config_invalid");
                          assertThat(e.getMessage()).contains("mistral");
                          assertThat(e.place()).hasValue("flows.models.small");
                          assertThat(e.fix().orElseThrow()).contains("openai-compatible");
                        }));
  }
}
