package dev.flows.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.spec.StepKind;
import java.time.Duration;

/** Serves deterministic steps without a process: succeeds after holding the attempt a while. */
public record InProcessExecutor(Duration hold) implements StepExecutor {
  @Override
  public StepKind kind() {
    return StepKind.DETERMINISTIC;
  }

  @Override
  public StepOutcome execute(StepExecution execution) throws InterruptedException {
    if (hold.isPositive()) {
      Thread.sleep(hold);
    }
    return new StepOutcome.Succeeded(JsonNodeFactory.instance.objectNode().put("ok", true));
  }
}
