package dev.flows.embed;

import static dev.flows.embed.TestFlows.on;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A drain whose stop grace ends while a body blocks in a step hands the run to another worker. */
class DrainBeyondGraceTest {
  record Wait(long millis) {}

  static final class Slow implements Flow<Wait, String> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("slow").build();
    }

    @Override
    public String run(Ctx f, Wait w) {
      return f.step(
          "wait",
          String.class,
          () -> {
            Thread.sleep(w.millis());
            return "done";
          });
    }
  }

  @Test
  void aBodyCutOffByTheDrainIsResumedByAnotherWorker() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("drain_grace");
    RunHandle<String> h;
    try (Flows first =
        on(db)
            .register(new Slow())
            .worker(w -> w.pollInterval(Duration.ofMillis(50)).stopGrace(Duration.ZERO))
            .build()) {
      h = first.start(Slow.class, new Wait(1_500), StartOptions.key("k"));
      Thread.sleep(300);
      first.drainWorker();
      RunInfo after = first.handle(h.runId()).snapshot();
      assertThat(after.state()).as(after.toString()).isEqualTo(RunState.RUNNING);
    }
    try (Flows second =
        on(db).register(new Slow()).worker(w -> w.pollInterval(Duration.ofMillis(50))).build()) {
      try {
        assertThat(second.handle(h.runId(), String.class).result(Duration.ofSeconds(30)))
            .isEqualTo("done");
      } catch (RunFailedException e) {
        throw new AssertionError(e.code() + " " + e.diagnostic(), e);
      }
    }
  }
}
