package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.LeaseRenewals;
import dev.flows.kernel.journal.LeaseToken;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.kernel.mcp.McpServerConfigJson;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.worker.ForwardingJournal;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A body waiting on its inline MCP call holds two leases (its own and the call's); the engine's one
 * lease keeper renews them together, so a worker pays one renewal write per tick for both.
 */
class SharedLeaseKeeperTest {
  static final String FLOW =
      """
      import com.fasterxml.jackson.databind.JsonNode;
      import dev.flows.sdk.*;
      import java.util.Map;

      public class Waits implements Flow<JsonNode, JsonNode> {
        public FlowHeader header() {
          return FlowHeader.named("waits").version("1").mcp("tools").build();
        }

        public JsonNode run(Ctx f, JsonNode input) {
          f.mcp("tools").tool("sleep").call(Map.of("ms", input.path("ms").asLong()));
          return input;
        }
      }
      """;

  /** Every renewLeases call: the run ids of the leases it renewed. */
  static final class Recording extends ForwardingJournal {
    final List<Set<RunRef>> renewals = new CopyOnWriteArrayList<>();

    Recording() {
      super(new InMemoryJournal(Clock.systemUTC()));
    }

    @Override
    public LeaseRenewals renewLeases(Collection<LeaseToken> leases) {
      renewals.add(leases.stream().map(LeaseToken::runId).collect(Collectors.toSet()));
      return delegate.renewLeases(leases);
    }
  }

  @Test
  void aBodyAndTheInlineCallItWaitsOnAreRenewedInTheSameJournalCall(@TempDir Path dir)
      throws Exception {
    Files.writeString(dir.resolve("waits.flow.java"), FLOW);
    JsonNode s = McpServerConfigJson.write(Jvm.stdioServer("tools", List.of(), Map.of()));
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\"tools\": {\"command\": "
            + s.path("command")
            + ", \"args\": "
            + s.path("args")
            + ", \"setEnv\": "
            + s.path("env")
            + "}}}");
    Recording journal = new Recording();
    // A short lease: a tick every ~300 ms, several while the call sleeps.
    Duration lease = Duration.ofMillis(900);
    Duration sleep = lease.multipliedBy(3);
    try (FlowsEngine engine =
        new FlowsEngine(
            journal,
            WorkerConfig.defaults().toBuilder()
                .defaultLease(lease)
                .pollInterval(Duration.ofMillis(50))
                .build(),
            SdkConfig.DEFAULTS,
            McpClientConfig.DEFAULTS,
            McpCredentials.fromEnvironment())) {
      LoadedFlow flow = LoadedFlow.load(dir.resolve("waits.flow.java").toString(), dir);
      RunRef root =
          engine
              .start(
                  flow,
                  JsonNodeFactory.instance.objectNode().put("ms", sleep.toMillis()),
                  Optional.empty())
              .runId();
      engine.startWorker();

      assertThat(EngineEndToEndTest.awaitTerminal(journal, root).status())
          .isEqualTo(RunStatus.SUCCEEDED);
      RunRef child = journal.children(root).getFirst();
      List<Set<RunRef>> withChild =
          journal.renewals.stream().filter(r -> r.contains(child)).toList();
      assertThat(withChild).as("the call's lease was renewed while it slept").isNotEmpty();
      assertThat(withChild)
          .as("each renewal of the call's lease renewed the body's lease with it")
          .allSatisfy(r -> assertThat(r).contains(root));
    }
  }
}
