package dev.flows.testing;

import static dev.flows.testing.FlowsAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flows.embed.RunFailedException;
import dev.flows.embed.RunHandle;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What fake servers do when told to misbehave, and assertions that fail when the run differs. */
@FlowsTest
class FakeServersAndAssertionsTest {
  @Test
  void aFailingToolFailsTheRunWithTheToolsErrorAndIsNotRetried(FlowsTestEnvironment env)
      throws Exception {
    env.register(new Charge());
    FakeTool charge =
        env.mcpServer("payments").tool("charge", args -> Map.of("id", "ch_1")).failing("declined");

    RunHandle<String> run = env.start(Charge.class, "o-1");

    assertThatThrownBy(() -> env.result(run))
        .isInstanceOf(RunFailedException.class)
        .extracting(e -> ((RunFailedException) e).code())
        .isEqualTo("mcp_tool_error");
    assertThat(charge.calls()).hasSize(1);
    assertThat(env.run(run.runId())).failed().performed("payments", "charge").once();
  }

  @Test
  void aToolFailureThrownByTheHandlerIsAnErrorResult(FlowsTestEnvironment env) throws Exception {
    env.register(new Charge());
    env.mcpServer("payments")
        .tool(
            "charge",
            args -> {
              throw new ToolFailure("card expired");
            });

    RunHandle<String> run = env.start(Charge.class, "o-2");

    assertThatThrownBy(() -> env.result(run)).isInstanceOf(RunFailedException.class);
    assertThat(env.run(run.runId()).mcpCalls().getFirst().result().orElseThrow().toString())
        .contains("card expired");
  }

  @Test
  void aSlowToolAnswersAfterItsDelayInWallTime(FlowsTestEnvironment env) throws Exception {
    env.register(new Charge());
    env.mcpServer("payments")
        .tool("charge", args -> Map.of("id", "ch_slow"))
        .delayed(Duration.ofMillis(300));
    env.flows().inventory(Charge.class);

    long t0 = System.nanoTime();
    assertThat(env.result(env.start(Charge.class, "o-3"))).isEqualTo("ch_slow");
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
  }

  @Test
  void aChildFlowIsReadWithItsOwnCalls(FlowsTestEnvironment env) throws Exception {
    env.register(new Checkout()).register(new Charge());
    env.mcpServer("payments").tool("charge", args -> Map.of("id", "ch_9"));

    RunHandle<String> run = env.start(Checkout.class, "o-9");

    assertThat(env.result(run)).isEqualTo("paid ch_9");
    assertThat(env.run(run.runId()))
        .succeeded()
        .hasOutput("paid ch_9")
        .performed("payments", "charge")
        .once()
        .and()
        .hasChild("charge")
        .succeeded()
        .hasOutput("ch_9")
        .performed("payments", "charge")
        .withArgs(Map.of("order", "o-9", "amountCents", 4200));
  }

  @Test
  void assertionsFailWhenTheRunDidOtherwise(FlowsTestEnvironment env) throws Exception {
    env.register(new Charge());
    env.mcpServer("payments").tool("charge", args -> Map.of("id", "ch_1"));
    RunHandle<String> run = env.start(Charge.class, "o-4");
    env.result(run);
    RunRecord record = env.run(run.runId());

    assertThatThrownBy(() -> assertThat(record).failed()).isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> assertThat(record).performed("payments", "charge").times(2))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(
            () -> assertThat(record).performed("payments", "charge").withArgs(Map.of("order", "x")))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> assertThat(record).hasChild("checkout"))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> assertThat(record).timedOutWaitingFor("approve"))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> assertThat(record).hasParkedStep("effect_outcome_unknown"))
        .isInstanceOf(AssertionError.class);
  }
}
