package dev.flows.ops.bench;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.workflow.Workflow;

/** The baseline's workload: a DBOS workflow of {@code n} no-op steps, as BenchFlows.Steps is. */
public final class DbosFlows {
  private DbosFlows() {}

  /** What DBOS proxies: the workflow's interface. */
  public interface Steps {
    int steps(int n);
  }

  /** {@code n} steps, each journaled by DBOS as this engine journals an {@code f.step}. */
  public static final class StepsImpl implements Steps {
    private final DBOS dbos;

    public StepsImpl(DBOS dbos) {
      this.dbos = dbos;
    }

    @Override
    @Workflow(name = "bench-steps")
    public int steps(int n) {
      for (int i = 0; i < n; i++) {
        int v = i;
        dbos.runStep(() -> v, "s" + i);
      }
      return n;
    }
  }
}
