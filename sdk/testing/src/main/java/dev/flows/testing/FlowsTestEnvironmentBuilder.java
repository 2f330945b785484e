package dev.flows.testing;

import java.time.Instant;

/** The options of a {@link FlowsTestEnvironment}, each with its default. */
public final class FlowsTestEnvironmentBuilder {
  private JournalKind journal = JournalKind.MEMORY;
  private boolean autoSkip = true;
  private Instant start = Instant.now();

  FlowsTestEnvironmentBuilder() {}

  /** Where the journal is (default {@link JournalKind#MEMORY}). */
  public FlowsTestEnvironmentBuilder journal(JournalKind kind) {
    this.journal = kind;
    return this;
  }

  /**
   * Whether waiting for a run skips time while every run waits on time (default true); without it
   * only {@link FlowsTestEnvironment#advance} moves the clock.
   */
  public FlowsTestEnvironmentBuilder autoSkip(boolean on) {
    this.autoSkip = on;
    return this;
  }

  /** Where the virtual clock starts (default: the wall clock's now). */
  public FlowsTestEnvironmentBuilder startingAt(Instant instant) {
    this.start = instant;
    return this;
  }

  public FlowsTestEnvironment build() {
    return new FlowsTestEnvironment(journal, autoSkip, start);
  }
}
