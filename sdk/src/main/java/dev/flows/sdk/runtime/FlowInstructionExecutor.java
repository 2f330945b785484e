package dev.flows.sdk.runtime;

import dev.flows.kernel.instruction.FlowBodyInstruction;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.worker.AgentInstructionExecutor;
import dev.flows.worker.StepExecution;

/**
 * Plugs flow bodies into the worker: agent steps whose instruction type is {@code flow} run their
 * body under the worker's lease (renewed while the body waits on its children).
 */
public final class FlowInstructionExecutor implements AgentInstructionExecutor {
  private final FlowBodyRunner runner;

  public FlowInstructionExecutor(FlowBodyRunner runner) {
    this.runner = runner;
  }

  @Override
  public String instructionType() {
    return FlowBodyInstruction.TYPE;
  }

  @Override
  public StepOutcome execute(StepExecution execution) throws InterruptedException {
    return runner.run(execution.attempt());
  }
}
