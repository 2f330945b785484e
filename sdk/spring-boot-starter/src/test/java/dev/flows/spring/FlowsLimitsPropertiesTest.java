package dev.flows.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.embed.Flows;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.FlowsError;
import java.sql.Connection;
import java.sql.ResultSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The journal's payload limits from {@code flows.limits.*}, held for the application's starts. */
class FlowsLimitsPropertiesTest {
  private static final TestDatabase.Fresh DB = TestDatabase.fresh("starter_limits");

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(FlowsAutoConfiguration.class))
          .withBean(DataSource.class, DB::dataSource)
          .withPropertyValues("flows.worker.enabled=false");

  record Text(String text) {}

  /** Answers its input. */
  static final class Echo implements Flow<Text, Text> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("echo").build();
    }

    @Override
    public Text run(Ctx f, Text input) {
      return input;
    }
  }

  @Test
  void aContextWithALoweredRunInputLimitRefusesABiggerStartWithNothingWritten() {
    runner
        .withBean(Echo.class, Echo::new)
        .withPropertyValues(
            "flows.limits.max-run-input-bytes=8192", "flows.limits.max-signal-bytes=8192")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Flows flows = context.getBean(Flows.class);
              int runs = runs();
              assertThatThrownBy(() -> flows.start(Echo.class, new Text("x".repeat(8192))))
                  .isInstanceOfSatisfying(
                      FlowsError.class,
                      e -> {
                        assertThat(e.code()).isEqualTo("payload_too_large");
                        assertThat(e.getMessage()).contains("maxRunInputBytes (8192 bytes)");
                      });
              assertThat(runs()).isEqualTo(runs);
              assertThat(flows.start(Echo.class, new Text("small")).created()).isTrue();
            });
  }

  @Test
  void aBoundOutOfRangeFailsTheContextConfigInvalidNamingItsProperty() {
    runner
        .withPropertyValues("flows.limits.max-signal-bytes=100")
        .run(
            context ->
                assertThat(FlowsAutoConfigurationTest.flowsError(context.getStartupFailure()))
                    .isInstanceOfSatisfying(
                        FlowsError.class,
                        e -> {
                          assertThat(e.code()).isEqualTo("config_invalid");
                          assertThat(e.oneLine())
                              .contains("(at flows.limits.max-signal-bytes)")
                              .contains("4096..268435455");
                        }));
  }

  private static int runs() throws Exception {
    try (Connection c = DB.dataSource().getConnection();
        ResultSet r = c.createStatement().executeQuery("SELECT count(*) FROM flows.runs")) {
      r.next();
      return r.getInt(1);
    }
  }
}
