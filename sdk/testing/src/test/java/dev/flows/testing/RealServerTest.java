package dev.flows.testing;

import static dev.flows.testing.FlowsAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.embed.McpServer;
import dev.flows.mcp.testkit.JettyMcpServer;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A real MCP server (the SDK's, over Streamable HTTP) beside the kit's fakes. */
@FlowsTest
class RealServerTest {
  /** Echoes its input through the real server's {@code echo} tool. */
  public static class Echo implements Flow<String, String> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("echo").version("1").mcp("real").build();
    }

    @Override
    public String run(Ctx f, String text) {
      return f.mcp("real").tool("echo").call(Map.of("text", text)).text();
    }
  }

  @Test
  void aFlowCallsARealServerGivenToTheEnvironment(FlowsTestEnvironment env) throws Exception {
    try (JettyMcpServer real = new JettyMcpServer(Optional.empty()).start()) {
      env.register(new Echo()).mcpServer(McpServer.http("real", real.url()));

      var run = env.start(Echo.class, "hello");

      assertThat(env.result(run)).isEqualTo("hello");
      assertThat(env.run(run.runId())).succeeded().performed("real", "echo").once();
    }
  }
}
