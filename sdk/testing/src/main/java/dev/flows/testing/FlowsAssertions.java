package dev.flows.testing;

/**
 * AssertJ entry point for what runs did: {@code assertThat(env.run(id)).succeeded()
 * .performed("payments", "charge").once().withArgs(Map.of("order", "o-1"))}.
 */
public final class FlowsAssertions {
  private FlowsAssertions() {}

  public static RunAssert assertThat(RunRecord run) {
    return new RunAssert(run);
  }
}
