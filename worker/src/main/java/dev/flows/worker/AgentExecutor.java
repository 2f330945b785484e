package dev.flows.worker;

import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.StepOutcome;
import dev.flows.kernel.spec.StepBody;
import dev.flows.kernel.spec.StepKind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Serves {@code agent} steps by dispatching on {@code instruction.type}. */
public final class AgentExecutor implements StepExecutor {
  private final Map<String, AgentInstructionExecutor> byType;

  public AgentExecutor(List<AgentInstructionExecutor> executors) {
    Map<String, AgentInstructionExecutor> m = new HashMap<>();
    for (AgentInstructionExecutor e : executors) {
      if (m.putIfAbsent(e.instructionType(), e) != null) {
        throw new IllegalArgumentException(
            "two executors for agent instruction type " + e.instructionType());
      }
    }
    byType = Map.copyOf(m);
  }

  public Set<String> instructionTypes() {
    return byType.keySet();
  }

  @Override
  public StepKind kind() {
    return StepKind.AGENT;
  }

  /**
   * An unknown type fails without retry: retrying on a worker that lacks the executor cannot help,
   * and the step spec is what must change.
   */
  @Override
  public StepOutcome execute(StepExecution execution) throws InterruptedException {
    StepBody.Agent body = (StepBody.Agent) execution.attempt().step().body();
    AgentInstructionExecutor executor = byType.get(body.instructionType());
    if (executor == null) {
      return new StepOutcome.Failed(
          CompletionReason.WORKER_ERROR,
          DiagnosticTails.of(
              WorkerDiagnostic.UNKNOWN_INSTRUCTION_TYPE,
              "no executor for agent instruction type '"
                  + body.instructionType()
                  + "'; this worker serves "
                  + byType.keySet()),
          false);
    }
    return executor.execute(execution);
  }
}
