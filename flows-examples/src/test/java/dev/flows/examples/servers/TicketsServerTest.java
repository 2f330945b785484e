package dev.flows.examples.servers;

import static dev.flows.examples.servers.Clients.call;
import static dev.flows.examples.servers.Clients.structured;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The tickets server as a child JVM over stdio, driven by the SDK's client. */
class TicketsServerTest {
  private static McpSyncClient client;

  @BeforeAll
  static void start() {
    client = Clients.tickets();
  }

  @AfterAll
  static void stop() {
    client.closeGracefully();
  }

  @Test
  void itListsItsThreeToolsWithInputSchemasAndAnnotations() {
    assertThat(client.listTools().tools())
        .extracting(McpSchema.Tool::name)
        .containsExactlyInAnyOrder("classify", "create_ticket", "get_ticket");
    McpSchema.Tool create = Clients.tool(client, "create_ticket");
    assertThat(Clients.required(create)).containsExactly("title", "body");
    assertThat(Clients.properties(create)).contains("title", "body", "priority");
    assertThat(create.annotations().idempotentHint()).isFalse();
    assertThat(create.annotations().readOnlyHint()).isFalse();
    McpSchema.Tool classify = Clients.tool(client, "classify");
    assertThat(Clients.required(classify)).containsExactly("text");
    assertThat(classify.annotations().readOnlyHint()).isTrue();
    assertThat(classify.annotations().idempotentHint()).isTrue();
    assertThat(Clients.tool(client, "get_ticket").annotations().readOnlyHint()).isTrue();
  }

  @Test
  void classifyAnswersTheCategoryAndPriorityOfTheRules() {
    JsonNode c =
        structured(call(client, "classify", Map.of("text", "Refund please, I was charged twice")));
    assertThat(c.path("category").asText()).isEqualTo("billing");
    assertThat(c.path("priority").asText()).isEqualTo("high");
  }

  @Test
  void aCreatedTicketCanBeReadBackById() {
    JsonNode t =
        structured(
            call(
                client,
                "create_ticket",
                Map.of(
                    "title", "Cannot log in", "body", "My account is locked", "priority", "low")));
    assertThat(t.path("id").asText()).startsWith("T-");
    assertThat(t.path("priority").asText()).isEqualTo("low");
    assertThat(t.path("category").asText()).isEqualTo("account");
    assertThat(t.path("status").asText()).isEqualTo("open");
    JsonNode back = structured(call(client, "get_ticket", Map.of("id", t.path("id").asText())));
    assertThat(back).isEqualTo(t);
  }

  @Test
  void aRepeatedIdempotencyKeyOpensOneTicket() {
    Map<String, Object> args = Map.of("title", "Double charge", "body", "charged twice");
    JsonNode first =
        structured(
            Clients.callWithKey(
                client, "create_ticket", args, IdempotencyLedger.META_KEY, "tickets-key-1"));
    CallToolResult again =
        Clients.callWithKey(
            client, "create_ticket", args, IdempotencyLedger.META_KEY, "tickets-key-1");
    assertThat(structured(again)).isEqualTo(first);
    assertThat(again.meta()).containsEntry(IdempotencyLedger.META_REPLAYED, true);
  }

  @Test
  void anUnknownTicketOrAMissingArgumentIsAToolError() {
    CallToolResult unknown = call(client, "get_ticket", Map.of("id", "T-999999"));
    assertThat(unknown.isError()).isTrue();
    assertThat(Clients.text(unknown)).contains("no ticket T-999999");
    CallToolResult missing = call(client, "create_ticket", Map.of("title", "no body"));
    assertThat(missing.isError()).isTrue();
  }

  @Test
  void theServerAnswersARequestWrittenJustBeforeStdinClosesThenExitsWithOnlyProtocolOnStdout()
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Clients.java());
    cmd.addAll(Clients.jvmArgs(TicketsServer.class));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      exchangeThenClose(p);
    } finally {
      p.destroyForcibly();
    }
  }

  private static void exchangeThenClose(Process p) throws Exception {
    try (OutputStream in = p.getOutputStream()) {
      in.write(
          ("""
              {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
              {"jsonrpc":"2.0","method":"notifications/initialized"}
              {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"classify","arguments":{"text":"site down"}}}
              """)
              .getBytes(StandardCharsets.UTF_8));
    }
    List<JsonNode> out = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        out.add(ToolKit.JSON.readTree(line));
      }
    }
    assertThat(p.waitFor(Clients.TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(out).allSatisfy(m -> assertThat(m.path("jsonrpc").asText()).isEqualTo("2.0"));
    assertThat(out).extracting(m -> m.path("id").asInt()).containsExactly(1, 2);
    assertThat(out.get(1).at("/result/structuredContent/priority").asText()).isEqualTo("urgent");
  }

  @Test
  void theServerExitsWhenStdinClosesWithNothingPending() throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Clients.java());
    cmd.addAll(Clients.jvmArgs(TicketsServer.class));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      p.getOutputStream().close();
      assertThat(p.waitFor(Clients.TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isZero();
    } finally {
      p.destroyForcibly();
    }
  }
}
