package dev.flows.examples.servers;

import static dev.flows.examples.servers.Clients.call;
import static dev.flows.examples.servers.Clients.callWithKey;
import static dev.flows.examples.servers.Clients.structured;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The payments server in-process on Jetty, driven over HTTP by the SDK's client. */
class PaymentsServerTest {
  private static final String TOKEN = "test-token-8c1f";
  private static PaymentsServer server;

  @BeforeAll
  static void start() throws Exception {
    server = PaymentsServer.start(ExamplesConfig.defaults(), 0, TOKEN);
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static McpSyncClient session() {
    return Clients.http(server.endpoint(), Optional.of(TOKEN));
  }

  private static String customer(McpSyncClient c, String email) {
    return structured(call(c, "create_customer", Map.of("email", email))).path("id").asText();
  }

  private static Map<String, Object> charge(String customer, long cents) {
    return Map.of("customer", customer, "amountCents", cents, "currency", "EUR");
  }

  private static JsonNode ledger(McpSyncClient c, String key) {
    return structured(call(c, "ledger", Map.of())).path("keys").path(key);
  }

  private static HttpResponse<String> rawInitialize(Optional<String> authorization)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(server.endpoint())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                        + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                        + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}"));
    authorization.ifPresent(a -> b.header("Authorization", a));
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  @Test
  void aRequestWithoutTheRightBearerTokenIsRefused401WithABearerChallenge() throws Exception {
    HttpResponse<String> none = rawInitialize(Optional.empty());
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer "));
    HttpResponse<String> wrong = rawInitialize(Optional.of("Bearer not-the-token"));
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(v -> assertThat(v).contains("error=\"invalid_token\""));
    assertThat(rawInitialize(Optional.of("Bearer " + TOKEN)).statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> Clients.http(server.endpoint(), Optional.empty()))
        .isInstanceOf(RuntimeException.class);
  }

  @Test
  void itListsItsToolsWithSchemasAndIdempotencyAnnotations() {
    McpSyncClient c = session();
    try {
      assertThat(c.listTools().tools())
          .extracting(McpSchema.Tool::name)
          .containsExactlyInAnyOrder(
              "create_customer", "charge", "credit", "refund", "ledger", "session_summary");
      McpSchema.Tool charge = Clients.tool(c, "charge");
      assertThat(charge.annotations().idempotentHint()).isFalse();
      assertThat(charge.annotations().readOnlyHint()).isFalse();
      assertThat(Clients.required(charge)).containsExactly("customer", "amountCents", "currency");
      McpSchema.Tool create = Clients.tool(c, "create_customer");
      assertThat(create.annotations().idempotentHint()).isTrue();
      assertThat(Clients.required(create)).containsExactly("email");
      assertThat(Clients.tool(c, "credit").annotations().idempotentHint()).isFalse();
      assertThat(Clients.tool(c, "ledger").annotations().readOnlyHint()).isTrue();
    } finally {
      c.closeGracefully();
    }
  }

  @Test
  void oneSessionsActivityIsInvisibleToAnother() {
    McpSyncClient a = session();
    McpSyncClient b = session();
    try {
      String cus = customer(a, "isolation@example.com");
      String ch = structured(call(a, "charge", charge(cus, 1_200))).path("id").asText();
      JsonNode seenByA = structured(call(a, "session_summary", Map.of()));
      JsonNode seenByB = structured(call(b, "session_summary", Map.of()));
      assertThat(seenByA.path("customers").toString()).contains(cus);
      assertThat(seenByA.path("charges").toString()).contains(ch);
      assertThat(seenByA.path("chargedCents").asLong()).isEqualTo(1_200);
      assertThat(seenByB.path("customers")).isEmpty();
      assertThat(seenByB.path("charges")).isEmpty();
      assertThat(seenByB.path("chargedCents").asLong()).isZero();
      assertThat(seenByB.path("sessionId").asText())
          .isNotEqualTo(seenByA.path("sessionId").asText());
    } finally {
      a.closeGracefully();
      b.closeGracefully();
    }
  }

  @Test
  void aRepeatedKeyIsPerformedOnceAndAnswersTheOriginalResultInAnotherSession() {
    String key = "run_1:charge:0";
    McpSyncClient first = session();
    JsonNode original;
    String cus;
    try {
      cus = customer(first, "once@example.com");
      original =
          structured(
              callWithKey(first, "charge", charge(cus, 4_200), IdempotencyLedger.META_KEY, key));
    } finally {
      first.closeGracefully();
    }
    McpSyncClient second = session();
    try {
      CallToolResult again =
          callWithKey(second, "charge", charge(cus, 4_200), IdempotencyLedger.META_KEY, key);
      assertThat(structured(again)).isEqualTo(original);
      assertThat(again.meta()).containsEntry(IdempotencyLedger.META_REPLAYED, true);
      assertThat(structured(call(second, "session_summary", Map.of())).path("charges")).isEmpty();
      JsonNode counted = ledger(second, key);
      assertThat(counted.path("tool").asText()).isEqualTo("charge");
      assertThat(counted.path("requests").asInt()).isEqualTo(2);
      assertThat(counted.path("performed").asInt()).isEqualTo(1);
    } finally {
      second.closeGracefully();
    }
  }

  @Test
  void thePlainIdempotencyKeyMetaNameIsHonouredToo() {
    McpSyncClient c = session();
    try {
      String cus = customer(c, "plain@example.com");
      JsonNode one =
          structured(
              callWithKey(
                  c, "credit", charge(cus, 500), IdempotencyLedger.META_KEY_PLAIN, "plain-1"));
      JsonNode two =
          structured(
              callWithKey(c, "credit", charge(cus, 500), IdempotencyLedger.META_KEY, "plain-1"));
      assertThat(two).isEqualTo(one);
      assertThat(ledger(c, "plain-1").path("performed").asInt()).isEqualTo(1);
    } finally {
      c.closeGracefully();
    }
  }

  @Test
  void withoutAKeyEveryChargeIsPerformed() {
    McpSyncClient c = session();
    try {
      String cus = customer(c, "nokey@example.com");
      String one = structured(call(c, "charge", charge(cus, 100))).path("id").asText();
      String two = structured(call(c, "charge", charge(cus, 100))).path("id").asText();
      assertThat(one).isNotEqualTo(two);
      assertThat(structured(call(c, "session_summary", Map.of())).path("charges")).hasSize(2);
    } finally {
      c.closeGracefully();
    }
  }

  @Test
  void aKeyReusedForOtherArgumentsIsRefusedAndTheFirstResultStands() {
    McpSyncClient c = session();
    try {
      String cus = customer(c, "reuse@example.com");
      JsonNode first =
          structured(
              callWithKey(c, "charge", charge(cus, 700), IdempotencyLedger.META_KEY, "reuse-1"));
      CallToolResult other =
          callWithKey(c, "charge", charge(cus, 701), IdempotencyLedger.META_KEY, "reuse-1");
      assertThat(other.isError()).isTrue();
      assertThat(Clients.text(other)).contains("reuse-1");
      assertThat(
              structured(
                  callWithKey(
                      c, "charge", charge(cus, 700), IdempotencyLedger.META_KEY, "reuse-1")))
          .isEqualTo(first);
      assertThat(ledger(c, "reuse-1").path("performed").asInt()).isEqualTo(1);
    } finally {
      c.closeGracefully();
    }
  }

  @Test
  void concurrentRequestsWithOneKeyFromSeveralSessionsArePerformedOnce() throws Exception {
    int sessions = 3;
    List<McpSyncClient> clients = new ArrayList<>();
    for (int i = 0; i < sessions; i++) {
      clients.add(session());
    }
    ExecutorService pool = Executors.newFixedThreadPool(sessions);
    try {
      String cus = customer(clients.get(0), "race@example.com");
      List<Callable<JsonNode>> calls = new ArrayList<>();
      for (McpSyncClient c : clients) {
        calls.add(
            () ->
                structured(
                    callWithKey(
                        c, "charge", charge(cus, 999), IdempotencyLedger.META_KEY, "race-1")));
      }
      List<JsonNode> results = new ArrayList<>();
      for (Future<JsonNode> f : pool.invokeAll(calls)) {
        results.add(f.get());
      }
      assertThat(results).allSatisfy(r -> assertThat(r).isEqualTo(results.get(0)));
      JsonNode counted = ledger(clients.get(0), "race-1");
      assertThat(counted.path("requests").asInt()).isEqualTo(sessions);
      assertThat(counted.path("performed").asInt()).isEqualTo(1);
    } finally {
      pool.shutdownNow();
      clients.forEach(McpSyncClient::closeGracefully);
    }
  }

  @Test
  void badArgumentsAreToolErrorsAndPerformNothing() {
    McpSyncClient c = session();
    try {
      assertThat(call(c, "charge", charge("cus_nothex", 100)).isError()).isTrue();
      assertThat(call(c, "charge", charge(customer(c, "bad@example.com"), 0)).isError()).isTrue();
      assertThat(call(c, "create_customer", Map.of("email", "not-an-email")).isError()).isTrue();
      assertThat(structured(call(c, "session_summary", Map.of())).path("charges")).isEmpty();
    } finally {
      c.closeGracefully();
    }
  }
}
