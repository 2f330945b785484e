package dev.flows.examples.flows;

import dev.flows.examples.servers.PaymentsServer;
import dev.flows.kernel.journal.Journal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.mcp.client.McpCredentials;
import java.time.Duration;
import java.util.Map;

/** Helpers for driving example flows through the engine in tests. */
final class Runs {
  /** Generous: worker JVMs and MCP servers start cold on two shared cores. */
  static final Duration SETTLE_DEADLINE = Duration.ofSeconds(120);

  static final Duration POLL = Duration.ofMillis(200);

  private Runs() {}

  /** Waits until {@code run} is terminal or parked. */
  static RunSnapshot awaitSettled(Journal journal, RunRef run) throws InterruptedException {
    long until = System.nanoTime() + SETTLE_DEADLINE.toNanos();
    while (System.nanoTime() < until) {
      RunSnapshot s = journal.run(run).orElseThrow();
      if (s.status().terminal() || s.status() == RunStatus.PARKED) {
        return s;
      }
      journal.awaitWork(POLL);
    }
    throw new AssertionError("run did not settle: " + journal.run(run));
  }

  /** The process environment, with the payments token set to {@code token}. */
  static McpCredentials withPaymentsToken(String token) {
    return new McpCredentials(
        name -> name.equals(PaymentsServer.TOKEN_ENV) ? token : System.getenv(name),
        Map.of(),
        Map.of(),
        Map.of());
  }
}
