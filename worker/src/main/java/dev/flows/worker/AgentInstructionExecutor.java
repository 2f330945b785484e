package dev.flows.worker;

import dev.flows.kernel.journal.StepOutcome;

/**
 * Runs agent steps whose {@code instruction.type} is {@link #instructionType()} (e.g. {@code mcp}).
 * Plugged into an {@link AgentExecutor}.
 */
public interface AgentInstructionExecutor {
  String instructionType();

  StepOutcome execute(StepExecution execution) throws InterruptedException;
}
