package dev.flows.examples.flows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.examples.servers.Clients;
import dev.flows.examples.servers.ExamplesConfig;
import dev.flows.examples.servers.PaymentsServer;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.mcp.McpAuth;
import dev.flows.kernel.mcp.McpServerConfig;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.compile.FlowSource;
import dev.flows.sdk.config.FlowsConfig;
import dev.flows.sdk.config.FlowsConfigLoader;
import dev.flows.sdk.config.ServerEntry;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExampleFlowsTest {
  /** Surefire runs in the module's directory. */
  static final Path FLOWS = Path.of("flows").toAbsolutePath();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "flows-test-token";

  private static FlowsConfig config() {
    return FlowsConfigLoader.load(FLOWS.resolve(FlowsConfigLoader.FILE_NAME));
  }

  private static Flow compile(String file) {
    return FlowSource.compile(FLOWS.resolve(file)).flow();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "triage.flow.java",
        "payment.flow.java",
        "everything.flow.java",
        "fanout.flow.java",
        "parent.flow.java",
        "refund.flow.java",
        "confirmed_refund.flow.java"
      })
  void eachExampleCompilesAndUsesOnlyServersItsHeaderAndFlowsJsonDeclare(String file)
      throws Exception {
    Path path = FLOWS.resolve(file);
    assertThat(FlowsConfigLoader.find(path)).contains(FLOWS.resolve("flows.json"));
    FlowHeader header = FlowSource.compile(path).flow().header();
    assertThat(header.name()).isEqualTo(file.substring(0, file.indexOf('.')));
    assertThat(header.mcp()).isNotEmpty();
    assertThat(config().mcp().keySet()).containsAll(header.mcp());
    assertThat(header.mcp()).containsAll(FlowSource.mcpServersCalled(Files.readString(path)));
  }

  @Test
  void flowsJsonStartsTicketsFromItsDirectoryAndReachesPaymentsOnLoopbackWithAToken() {
    FlowsConfig cfg = config();
    ServerEntry tickets = cfg.server("tickets").orElseThrow();
    McpServerConfig.Stdio stdio = (McpServerConfig.Stdio) tickets.config();
    Path launcher = Path.of(stdio.cwd().orElseThrow()).resolve(stdio.args().getFirst());
    assertThat(Files.isExecutable(launcher)).isTrue();
    assertThat(launcher.normalize()).isEqualTo(FLOWS.resolveSibling("bin/tickets-server"));
    ServerEntry payments = cfg.server("payments").orElseThrow();
    McpServerConfig.Http http = (McpServerConfig.Http) payments.config();
    assertThat(http.url().getHost()).isEqualTo(PaymentsServer.HOST);
    assertThat(http.url().getPath()).isEqualTo(PaymentsServer.ENDPOINT);
    assertThat(payments.honoursIdempotencyKeys()).isTrue();
    assertThat(http.auth())
        .isEqualTo(
            new McpAuth.ApiToken(
                "Authorization",
                Optional.of("Bearer"),
                new McpAuth.SecretSource.EnvVar(PaymentsServer.TOKEN_ENV)));
  }

  @Test
  void theTriageFlowClassifiesCreditsAndOpensATicketAcrossBothServers() throws Exception {
    try (PaymentsServer payments = PaymentsServer.start(ExamplesConfig.defaults(), 0, TOKEN)) {
      McpSyncClient pay = Clients.http(payments.endpoint(), TOKEN);
      McpSyncClient tickets = Clients.tickets();
      try {
        Flow triage = compile("triage.flow.java");
        JsonNode input =
            JSON.readTree(
                "{\"email\":\"lin@example.com\",\"message\":\"I was charged twice, please"
                    + " refund\"}");
        DirectCtx f =
            new DirectCtx(
                new RunRef("triage_1"),
                triage.header(),
                input,
                Map.of("tickets", tickets, "payments", pay));
        JsonNode out = (JsonNode) triage.run(f, input);
        assertThat(out.path("ticket").asText()).startsWith("T-");
        assertThat(out.path("category").asText()).isEqualTo("billing");
        assertThat(out.path("priority").asText()).isEqualTo("high");
        assertThat(out.path("credit").asText()).startsWith("cr_");
        assertThat(out.path("reply").asText()).contains(out.path("ticket").asText());
        assertThat(f.receipts())
            .extracting(r -> r.path("server").asText() + "/" + r.path("tool").asText())
            .containsExactly(
                "tickets/classify",
                "payments/create_customer",
                "payments/credit",
                "tickets/create_ticket");
        JsonNode ticket =
            JSON.valueToTree(
                tickets
                    .callTool(
                        new CallToolRequest(
                            "get_ticket", Map.of("id", out.path("ticket").asText())))
                    .structuredContent());
        assertThat(ticket.path("customer").asText()).isEqualTo(out.path("customer").asText());
      } finally {
        pay.closeGracefully();
        tickets.closeGracefully();
      }
    }
  }

  @Test
  void thePaymentFlowSentTwiceWithTheSameKeysChargesOnce() throws Exception {
    try (PaymentsServer payments = PaymentsServer.start(ExamplesConfig.defaults(), 0, TOKEN)) {
      Flow payment = compile("payment.flow.java");
      JsonNode input = JSON.readTree("{\"email\":\"kim@example.com\",\"amountCents\":2500}");
      JsonNode first = runPayment(payment, payments, input);
      // A second worker replaying the same run, on a new session, sends the same keys.
      JsonNode second = runPayment(payment, payments, input);
      assertThat(second).isEqualTo(first);
      assertThat(first.path("amountCents").asLong()).isEqualTo(2500);
      assertThat(first.path("idempotencyKey").asText()).isEqualTo("payment_1:1");
      assertThat(payments.ledger().counts())
          .hasSize(2)
          .allSatisfy(
              (key, count) -> {
                assertThat(count.requests()).isEqualTo(2);
                assertThat(count.performed()).isEqualTo(1);
              });
    }
  }

  private static JsonNode runPayment(Flow payment, PaymentsServer payments, JsonNode input)
      throws Exception {
    McpSyncClient pay = Clients.http(payments.endpoint(), TOKEN);
    try {
      return (JsonNode)
          payment.run(
              new DirectCtx(
                  new RunRef("payment_1"), payment.header(), input, Map.of("payments", pay)),
              input);
    } finally {
      pay.closeGracefully();
    }
  }

  /**
   * Needs Node.js and the reference server installed: set FLOWS_EVERYTHING_SERVER to its {@code
   * dist/index.js} (the flow itself starts it with npx).
   */
  @Test
  void theEverythingFlowEchoesAndSumsOnTheReferenceServer() throws Exception {
    Optional<Path> script = ExampleFlowsEngineTest.everythingScript();
    assumeTrue(
        script.isPresent(),
        "FLOWS_EVERYTHING_SERVER does not name server-everything's dist/index.js");
    McpSyncClient everything =
        Clients.stdio(
            "node",
            List.of(script.get().toString(), "stdio"),
            Map.of("PATH", System.getenv("PATH")));
    try {
      Flow flow = compile("everything.flow.java");
      JsonNode input = JSON.readTree("{\"message\":\"hi\",\"a\":20,\"b\":22}");
      JsonNode out =
          (JsonNode)
              flow.run(
                  new DirectCtx(
                      new RunRef("everything_1"),
                      flow.header(),
                      input,
                      Map.of("everything", everything)),
                  input);
      assertThat(out.path("echo").asText()).contains("hi");
      assertThat(out.path("sum").asText()).contains("42");
    } finally {
      everything.closeGracefully();
    }
  }
}
