package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.sdk.FlowHeader;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One worker serving a class flow at two versions: each run replays on the version it started. */
class VersionsSideBySideTest {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private final InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
  private final FlowResolver resolver = new FlowResolver();
  private final MiniWorker worker =
      new MiniWorker(journal, new FlowBodyRunner(journal, resolver, SdkConfig.DEFAULTS));

  private static DurableFlowTest.TestFlow version(String v) {
    return new DurableFlowTest.TestFlow(
        FlowHeader.named("triage").version(v).build(),
        (f, in) -> {
          f.step("load", () -> 1);
          if (v.equals("2")) {
            f.step("lookup", () -> 2);
          }
          f.awaitSignal("go", Duration.ofHours(1));
          return JSON.textNode("on version " + v);
        });
  }

  private RunRef start(DurableFlowTest.TestFlow flow) {
    return journal
        .admit(
            StartRun.of(
                "k-" + System.nanoTime(),
                Lowering.root(
                    flow.header(),
                    new FlowBodyInstruction.Origin.ClassFlow("triage"),
                    JSON.objectNode(),
                    DurableFlowTest.inventory(),
                    SdkConfig.DEFAULTS)),
            Admit.queued())
        .runId();
  }

  private RunSnapshot until(RunRef run, boolean ended) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      worker.tick();
      RunSnapshot s = journal.run(run).orElseThrow();
      boolean waiting =
          s.steps().getFirst().attempts() > 0
              && s.steps().getFirst().status() == dev.flows.kernel.lifecycle.StepStatus.READY;
      if (ended ? s.status().terminal() : waiting) {
        return s;
      }
      Thread.sleep(5);
    }
    throw new AssertionError("run " + run + " did not get there: " + journal.run(run));
  }

  @Test
  void runsOfVersionsOneAndTwoInOneWorkerFinishEachOnItsOwnCode() throws Exception {
    DurableFlowTest.TestFlow v1 = version("1");
    DurableFlowTest.TestFlow v2 = version("2");
    resolver.register(v2).register(v1);

    RunRef old = start(v1);
    until(old, false);
    RunRef fresh = start(resolver.registered("triage").orElseThrow() == v2 ? v2 : v1);
    until(fresh, false);
    journal.sendSignal(old, "go", JSON.nullNode(), Optional.empty());
    journal.sendSignal(fresh, "go", JSON.nullNode(), Optional.empty());

    RunSnapshot oldDone = until(old, true);
    RunSnapshot freshDone = until(fresh, true);
    assertThat(oldDone.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(oldDone.steps().getFirst().output()).contains(JSON.textNode("on version 1"));
    assertThat(freshDone.status()).isEqualTo(RunStatus.SUCCEEDED);
    assertThat(freshDone.steps().getFirst().output()).contains(JSON.textNode("on version 2"));
    assertThat(resolver.registered("triage")).as("a start by name takes the newest").contains(v2);
  }

  @Test
  void theNewestVersionIsComparedByNumberedParts() {
    assertThat(FlowVersions.newer("10", "9")).isTrue();
    assertThat(FlowVersions.newer("1.10", "1.9")).isTrue();
    assertThat(FlowVersions.newer("1.1", "1")).isTrue();
    assertThat(FlowVersions.newer("2", "2")).isFalse();
    assertThat(FlowVersions.newer("b", "a")).isTrue();
  }
}
