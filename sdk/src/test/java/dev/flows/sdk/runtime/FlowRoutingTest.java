package dev.flows.sdk.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.flows.kernel.journal.InMemoryJournal;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.lifecycle.RunStatus;
import dev.flows.kernel.mcp.McpClientConfig;
import dev.flows.mcp.client.McpCredentials;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.worker.WorkerConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A worker claims a class-path flow's body only when it has that flow at that version. */
class FlowRoutingTest {
  public static final class V1 implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("routed").version("1").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      return f.step("v", () -> "one");
    }
  }

  public static final class V2 implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("routed").version("2").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      return f.step("v", () -> "two");
    }
  }

  private static FlowsEngine engine(InMemoryJournal journal) {
    return new FlowsEngine(
        journal,
        WorkerConfig.defaults().toBuilder().pollInterval(Duration.ofMillis(20)).build(),
        SdkConfig.DEFAULTS,
        McpClientConfig.DEFAULTS,
        McpCredentials.fromEnvironment());
  }

  @Test
  void aWorkerWithoutTheFlowOrWithAnotherVersionNeverClaimsItsBody() throws Exception {
    InMemoryJournal journal = new InMemoryJournal(Clock.systemUTC());
    try (FlowsEngine admitter = engine(journal);
        FlowsEngine lacksIt = engine(journal);
        FlowsEngine newer = engine(journal).register(new V2())) {
      RunRef run =
          admitter
              .admit(
                  LoadedFlow.load(V1.class.getName(), Path.of(".")),
                  JsonNodeFactory.instance.objectNode(),
                  Optional.empty(),
                  Inventory.empty())
              .runId();
      assertThat(lacksIt.resolver().routes()).noneMatch(r -> r.startsWith("flow:routed"));
      lacksIt.startWorker();
      newer.startWorker();
      Thread.sleep(500);
      assertThat(lacksIt.worker().stats().claimed()).isZero();
      assertThat(newer.worker().stats().claimed()).isZero();
      assertThat(journal.run(run).orElseThrow().steps().getFirst().attempts()).isZero();

      admitter.startWorker();
      long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!journal.run(run).orElseThrow().status().terminal() && System.nanoTime() < until) {
        journal.awaitWork(Duration.ofMillis(100));
      }
      assertThat(journal.run(run).orElseThrow().status()).isEqualTo(RunStatus.SUCCEEDED);
      assertThat(journal.run(run).orElseThrow().steps().getFirst().output().orElseThrow().asText())
          .isEqualTo("one");
    }
  }
}
