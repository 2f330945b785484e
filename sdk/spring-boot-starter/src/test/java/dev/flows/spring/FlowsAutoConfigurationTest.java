package dev.flows.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.embed.Flows;
import dev.flows.embed.FlowsHealth;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The auto-configuration in an application context: the DataSource it accepts and refuses, the
 * {@code flows.*} properties, the Flow beans it registers, the worker's lifecycle and the health
 * component.
 */
class FlowsAutoConfigurationTest {
  private static final TestDatabase.Fresh DB = TestDatabase.fresh("starter");

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(FlowsAutoConfiguration.class));

  record Name(String name) {}

  record Greeting(String text) {}

  static final class Greet implements Flow<Name, Greeting> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("greet").build();
    }

    @Override
    public Greeting run(Ctx f, Name input) {
      return new Greeting(f.step("greet", String.class, () -> "hello " + input.name()));
    }
  }

  /** Declares the MCP server {@code tickets}: a context without it is refused at build. */
  static final class Triage implements Flow<Name, Greeting> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("triage").mcp("tickets").build();
    }

    @Override
    public Greeting run(Ctx f, Name input) {
      return new Greeting(f.mcp("tickets").tool("echo").call(input).text());
    }
  }

  @Test
  void everyFlowBeanIsRegisteredAndTheWorkerStartedWithTheContextRunsIt() {
    runner
        .withBean(DataSource.class, DB::dataSource)
        .withBean(Greet.class, Greet::new)
        .withBean(Triage.class, Triage::new)
        .withPropertyValues(
            "flows.worker.capacity=2",
            "flows.worker.queues=default,bulk",
            "flows.mcp-servers.tickets.command=/bin/true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Flows flows = context.getBean(Flows.class);
              assertThat(flows.workerState()).isEqualTo(FlowsHealth.Worker.CLAIMING);
              assertThat(flows.start(Greet.class, new Name("ada")).result(Duration.ofSeconds(30)))
                  .isEqualTo(new Greeting("hello ada"));
              // Registered: its start is preflighted (the stand-in server speaks no MCP), not
              // refused flow_not_found.
              assertThatThrownBy(() -> flows.start(Triage.class, new Name("bob")))
                  .isInstanceOfSatisfying(
                      FlowsError.class,
                      e -> assertThat(e.code()).isNotEqualTo(ErrorCode.FLOW_NOT_FOUND.wire()));
              assertThat(context.getBean(FlowsHealthIndicator.class).health().getStatus())
                  .isEqualTo(Status.UP);
            });
  }

  @Test
  void closingTheContextDrainsTheWorker() {
    Flows[] seen = new Flows[1];
    runner
        .withBean(DataSource.class, DB::dataSource)
        .run(context -> seen[0] = context.getBean(Flows.class));

    assertThat(seen[0].workerState()).isEqualTo(FlowsHealth.Worker.STOPPED);
  }

  @Test
  void aContextStoppedAndStartedAgainRunsFlowsAgain() {
    stopsAndStartsAgain(
        ConfigurableApplicationContext::stop, ConfigurableApplicationContext::start);
  }

  @Test
  void aPausedContextDrainsItsWorkerAndARestartedOneClaimsAgain() {
    // What Spring's test framework does to a cached context another test class stopped using, and
    // to it again when a later class uses it.
    stopsAndStartsAgain(
        ConfigurableApplicationContext::pause, ConfigurableApplicationContext::restart);
  }

  private void stopsAndStartsAgain(
      Consumer<ConfigurableApplicationContext> stop,
      Consumer<ConfigurableApplicationContext> start) {
    runner
        .withBean(DataSource.class, DB::dataSource)
        .withBean(Greet.class, Greet::new)
        .run(
            context -> {
              Flows flows = context.getBean(Flows.class);
              stop.accept(
                  context.getSourceApplicationContext(ConfigurableApplicationContext.class));
              assertThat(flows.workerState()).isEqualTo(FlowsHealth.Worker.STOPPED);

              start.accept(
                  context.getSourceApplicationContext(ConfigurableApplicationContext.class));

              assertThat(flows.workerState()).isEqualTo(FlowsHealth.Worker.CLAIMING);
              assertThat(flows.start(Greet.class, new Name("eve")).result(Duration.ofSeconds(30)))
                  .isEqualTo(new Greeting("hello eve"));
            });
  }

  @Test
  void aFlowDeclaringAServerNoPropertyGivesStopsTheContext() {
    runner
        .withBean(DataSource.class, DB::dataSource)
        .withBean(Triage.class, Triage::new)
        .run(
            context ->
                assertThat(flowsError(context.getStartupFailure()))
                    .isInstanceOf(FlowsError.class)
                    .hasMessageContaining("tickets"));
  }

  @Test
  void aDataSourceThatIsNotPostgresStopsTheContextWithACodedRefusal() {
    runner
        .withBean(DataSource.class, () -> reportingUrl("jdbc:h2:mem:orders"))
        .run(
            context -> {
              Throwable root = flowsError(context.getStartupFailure());
              assertThat(root)
                  .isInstanceOfSatisfying(
                      FlowsError.class,
                      e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire());
                        assertThat(e.getMessage()).contains("not a Postgres database");
                      });
              FailureAnalysis analysis =
                  new FlowsFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis.getDescription())
                  .startsWith("config_invalid: the DataSource is not a Postgres database");
              assertThat(analysis.getAction()).contains("Postgres");
            });
  }

  @Test
  void aSchemaBehindThisBuildStopsTheContextUnlessFlowsMigrateIsSet() {
    TestDatabase.Fresh empty = TestDatabase.empty("starter_migrate");
    runner
        .withBean(DataSource.class, empty::dataSource)
        .run(
            context ->
                assertThat(flowsError(context.getStartupFailure()))
                    .isInstanceOfSatisfying(
                        FlowsError.class,
                        e -> {
                          assertThat(e.code()).isEqualTo(ErrorCode.MIGRATION_PENDING.wire());
                          assertThat(e.fix())
                              .hasValue(
                                  "set flows.migrate=true, or run `flows db migrate` against the"
                                      + " same database");
                        }));
    runner
        .withBean(DataSource.class, empty::dataSource)
        .withPropertyValues("flows.migrate=true")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void anMcpServerWithNeitherCommandNorUrlIsRefusedNamingItsProperty() {
    runner
        .withBean(DataSource.class, DB::dataSource)
        .withPropertyValues("flows.mcp-servers.tickets.cwd=/tmp")
        .run(
            context ->
                assertThat(flowsError(context.getStartupFailure()))
                    .isInstanceOfSatisfying(
                        FlowsError.class,
                        e -> assertThat(e.place()).hasValue("flows.mcp-servers.tickets")));
  }

  @Test
  void theWorkerCanBeLeftToAnotherProcess() {
    runner
        .withBean(DataSource.class, DB::dataSource)
        .withPropertyValues("flows.worker.enabled=false")
        .run(
            context -> {
              Flows flows = context.getBean(Flows.class);
              assertThat(flows.runsWorker()).isFalse();
              assertThat(flows.workerState()).isEqualTo(FlowsHealth.Worker.NONE);
            });
  }

  @Test
  void theFlowsPropertiesHaveConfigurationMetadataForIdeCompletion() throws Exception {
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).isNotNull();
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(json)
          .contains(
              "\"flows.migrate\"",
              "\"flows.worker.capacity\"",
              "\"flows.worker.stop-grace\"",
              "\"flows.worker.queues\"",
              "\"flows.mcp-servers\"",
              "\"flows.models\"",
              "\"flows.limits.max-run-input-bytes\"",
              "\"flows.limits.max-signal-bytes\"",
              "\"flows.limits.max-answer-bytes\"");
    }
  }

  /** The public refusal in {@code t}'s causes (the engine's own exception is its cause). */
  static Throwable flowsError(Throwable t) {
    Throwable c = t;
    while (!(c instanceof FlowsError) && c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c;
  }

  /** A DataSource whose connections say they are of {@code url}, and nothing more. */
  private static DataSource reportingUrl(String url) {
    DatabaseMetaData meta =
        proxy(DatabaseMetaData.class, name -> name.equals("getURL") ? url : null);
    Connection connection =
        proxy(Connection.class, name -> name.equals("getMetaData") ? meta : null);
    return proxy(DataSource.class, name -> name.equals("getConnection") ? connection : null);
  }

  @SuppressWarnings("unchecked")
  private static <T> T proxy(Class<T> type, java.util.function.Function<String, Object> answer) {
    return (T)
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (p, m, args) ->
                m.getName().equals("toString") ? type.getSimpleName() : answer.apply(m.getName()));
  }
}
