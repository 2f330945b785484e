package dev.flows.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.embed.Flows;
import dev.flows.embed.RunInfo;
import dev.flows.embed.RunState;
import dev.flows.embed.StartOptions;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.RunId;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The web console served by the sample service's own web server (Tomcat) under /flows: the run
 * list, a run's page, an action behind the operator token, and the service's health beside it.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "flows.console.enabled=true",
      "flows.console.token=" + OrdersConsoleTest.TOKEN,
      "management.endpoints.web.exposure.include=health,configprops",
      "management.endpoint.configprops.show-values=always"
    })
class OrdersConsoleTest {
  static final String TOKEN = "console-operator-token";
  private static final TestDatabase.Fresh DB = TestDatabase.empty("spring_console");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DB::jdbcUrl);
  }

  @Value("${local.server.port}")
  int port;

  @Autowired Flows flows;

  @Test
  void theConsoleListsTheRunTheServiceStartedAndShowsItsPage() throws Exception {
    HttpResponse<String> order =
        post(
            "/orders",
            "application/json",
            "{\"id\":\"c-1\",\"quantity\":1,\"unitCents\":5,\"packingMillis\":0}",
            "");
    assertThat(order.statusCode()).as(order.body()).isEqualTo(200);
    RunInfo run =
        flows.runs().named("pack-order").state(RunState.SUCCEEDED).list(10).stream()
            .filter(r -> r.admissionKey().endsWith("c-1"))
            .findFirst()
            .orElseThrow();

    HttpResponse<String> list = get(port, "/flows/");
    assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
    assertThat(list.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
    assertThat(list.body()).contains("href=\"/flows/runs/" + run.id().value() + "\"");
    HttpResponse<String> page = get(port, "/flows/runs/" + run.id().value());
    assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
    assertThat(page.body()).contains(run.id().value()).contains("pack-order");
    assertThat(get(port, "/flows/static/console.css").statusCode()).isEqualTo(200);
    assertThat(get(port, "/flows").statusCode()).as("the bare path").isBetween(300, 399);
  }

  @Test
  void anActionWithTheTokenActsAndWithoutItIsRefused() throws Exception {
    String key = "console-" + UUID.randomUUID();
    RunId runId =
        flows
            .start(PackOrder.class, new PackOrder.Order(key, 1, 1, 5_000), StartOptions.key(key))
            .runId();
    String cancel = "/flows/api/runs/" + runId.value() + "/cancel";

    HttpResponse<String> refused = post(cancel, FORM, "reason=no+token", "");
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(401);
    assertThat(JSON.readTree(refused.body()).path("error").path("code").asText())
        .isEqualTo("ui_unauthorized");
    assertThat(flows.handle(runId).snapshot().state()).isNotEqualTo(RunState.CANCELED);

    HttpResponse<String> done = post(cancel, FORM, "reason=from+the+console", TOKEN);
    assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
    assertThat(JSON.readTree(done.body()).path("status").asText()).isEqualTo("canceled");
    assertThat(flows.handle(runId).snapshot().state()).isEqualTo(RunState.CANCELED);
  }

  @Test
  void theHealthStaysUpAndTheTokenIsMaskedInConfigprops() throws Exception {
    HttpResponse<String> health = get(port, "/actuator/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(health.body()).path("status").asText()).isEqualTo("UP");
    HttpResponse<String> configprops = get(port, "/actuator/configprops");
    assertThat(configprops.statusCode()).isEqualTo(200);
    assertThat(configprops.body()).contains("flows.console").doesNotContain(TOKEN);
  }

  @Test
  void withoutATokenTheConsoleIsReadOnlyAndWithoutTheFlagItIsAbsent() throws Exception {
    try (ConfigurableApplicationContext readOnly =
            service("flows.console.enabled=true", "flows.console.path=/ops/flows");
        ConfigurableApplicationContext without = service()) {
      int readOnlyPort = port(readOnly);
      assertThat(get(readOnlyPort, "/ops/flows/").statusCode()).isEqualTo(200);
      HttpResponse<String> refused =
          HTTP.send(
              HttpRequest.newBuilder(uri(readOnlyPort, "/ops/flows/api/runs/run_x/cancel"))
                  .header("Content-Type", FORM)
                  .header("Authorization", "Bearer " + TOKEN)
                  .POST(HttpRequest.BodyPublishers.ofString("reason=x"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(refused.statusCode()).isEqualTo(403);
      assertThat(refused.body()).contains("ui_read_only");
      assertThat(get(port(without), "/flows/").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void aSignalFromTheConsolePastTheServicesLoweredBoundIsRefusedWithNothingWritten()
      throws Exception {
    try (ConfigurableApplicationContext bounded =
        service(
            "flows.console.enabled=true",
            "flows.console.token=" + TOKEN,
            "flows.limits.max-signal-bytes=4096")) {
      Flows service = bounded.getBean(Flows.class);
      String key = "bounded-" + UUID.randomUUID();
      RunId runId =
          service
              .start(PackOrder.class, new PackOrder.Order(key, 1, 1, 5_000), StartOptions.key(key))
              .runId();
      String signal = "/flows/api/runs/" + runId.value() + "/signal";
      // Under the 4 MiB default and the servlet's 1 MiB body bound, past the service's 4096 bytes.
      String big = "{\"note\":\"" + "x".repeat(5_000) + "\"}";
      int before = signals(runId);

      HttpResponse<String> refused = post(port(bounded), signal, FORM, form("approve", big), TOKEN);
      assertThat(refused.statusCode()).as(refused.body()).isBetween(400, 499);
      assertThat(JSON.readTree(refused.body()).path("error").path("code").asText())
          .isEqualTo("payload_too_large");
      assertThat(refused.body()).contains("maxSignalBytes (4096 bytes)");
      assertThat(signals(runId)).isEqualTo(before);

      HttpResponse<String> sent =
          post(port(bounded), signal, FORM, form("approve", "{\"ok\":true}"), TOKEN);
      assertThat(sent.statusCode()).as(sent.body()).isEqualTo(200);
      assertThat(signals(runId)).isEqualTo(before + 1);
    }
  }

  private static String form(String name, String payload) {
    return "name="
        + java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8)
        + "&payload="
        + java.net.URLEncoder.encode(payload, java.nio.charset.StandardCharsets.UTF_8);
  }

  private static int signals(RunId run) throws Exception {
    try (java.sql.Connection c = DB.dataSource().getConnection();
        java.sql.PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM flows.signals WHERE run_id = ?")) {
      ps.setString(1, run.value());
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private static final String FORM = "application/x-www-form-urlencoded";

  private static ConfigurableApplicationContext service(String... properties) {
    String[] all = new String[properties.length + 3];
    all[0] = "spring.datasource.url=" + DB.jdbcUrl();
    all[1] = "server.port=0";
    all[2] = "flows.worker.enabled=false";
    System.arraycopy(properties, 0, all, 3, properties.length);
    return new SpringApplicationBuilder(OrdersApplication.class).properties(all).run();
  }

  private static int port(ConfigurableApplicationContext context) {
    return ((WebServerApplicationContext) context).getWebServer().getPort();
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri(port, path)).GET().timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String type, String body, String token)
      throws Exception {
    return post(port, path, type, body, token);
  }

  private static HttpResponse<String> post(
      int port, String path, String type, String body, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri(port, path))
            .header("Content-Type", type)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (!token.isEmpty()) {
      b.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(int port, String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }
}
