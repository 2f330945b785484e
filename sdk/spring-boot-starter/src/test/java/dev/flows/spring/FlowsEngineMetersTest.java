package dev.flows.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.embed.Flows;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The engine's metrics in the application's Micrometer registry. */
class FlowsEngineMetersTest {
  private static final TestDatabase.Fresh DB = TestDatabase.fresh("starter_meters");

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  MetricsAutoConfiguration.class,
                  SimpleMetricsExportAutoConfiguration.class,
                  FlowsAutoConfiguration.class))
          .withBean(DataSource.class, DB::dataSource);

  record Name(String name) {}

  /** Two steps, then its end. */
  static final class Twice implements Flow<Name, String> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("twice").build();
    }

    @Override
    public String run(Ctx f, Name input) {
      String a = f.step("one", String.class, () -> "a");
      return a + f.step("two", String.class, () -> "b") + input.name();
    }
  }

  @Test
  void afterARunCompletesTheRegistryHasTheRunCountersAndTheClaimTimer() {
    runner
        .withBean(Twice.class, Twice::new)
        // The body runs where it was started, without a claim: the claim loop claims on each poll.
        .withPropertyValues("flows.worker.poll-interval=50ms")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              Flows flows = context.getBean(Flows.class);
              assertThat(flows.start(Twice.class, new Name("!")).result(Duration.ofSeconds(60)))
                  .isEqualTo("ab!");
              assertThat(flows.start(Twice.class, new Name("?")).result(Duration.ofSeconds(60)))
                  .isEqualTo("ab?");

              assertThat(counter(registry, FlowsEngineMeters.RUNS_STARTED, "flow", "twice"))
                  .isEqualTo(2.0);
              assertThat(ended(registry, 2.0)).isEqualTo(2.0);
              Timer claims = claimTimer(registry);
              assertThat(claims.count()).isPositive();
              assertThat(claims.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)).isPositive();
            });
  }

  /**
   * The runs of {@code twice} that ended succeeded, once {@code want} were counted or after ten
   * seconds: the completing worker counts an end just after the journal took it, so a waiter may
   * see the result first.
   */
  private static double ended(MeterRegistry registry, double want) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    double n = 0;
    while (System.nanoTime() < deadline) {
      Counter c =
          registry
              .find(FlowsEngineMeters.RUNS_ENDED)
              .tags("flow", "twice", "status", "succeeded")
              .counter();
      n = c == null ? 0 : c.count();
      if (n >= want) {
        return n;
      }
      Thread.sleep(20);
    }
    return n;
  }

  /** The claim timer, once the claim loop has polled at least once since the registry bound. */
  private static Timer claimTimer(MeterRegistry registry) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    Timer t = registry.find(FlowsEngineMeters.CLAIM_DURATION).timer();
    while ((t == null || t.count() == 0) && System.nanoTime() < deadline) {
      Thread.sleep(20);
      t = registry.find(FlowsEngineMeters.CLAIM_DURATION).timer();
    }
    assertThat(t).as(FlowsEngineMeters.CLAIM_DURATION).isNotNull();
    return t;
  }

  private static double counter(MeterRegistry registry, String name, String tag, String value) {
    Counter c = registry.find(name).tag(tag, value).counter();
    assertThat(c).as(name).isNotNull();
    return c.count();
  }
}
