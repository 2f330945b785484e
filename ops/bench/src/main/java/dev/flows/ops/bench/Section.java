package dev.flows.ops.bench;

/**
 * One section of the benchmark (the baseline, or a name {@code --only} takes): it measures on the
 * plan's sizes and puts what it measured in the report.
 */
@FunctionalInterface
interface Section {
  void run() throws Exception;

  /** How a section is made for one run. */
  @FunctionalInterface
  interface Of {
    Section of(Bench.Plan plan, Pg pg, Report report);
  }
}
