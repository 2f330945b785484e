package dev.flows.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flows.embed.Flows;
import dev.flows.embed.RunHandle;
import dev.flows.embed.RunInfo;
import dev.flows.embed.RunState;
import dev.flows.embed.StartOptions;
import dev.flows.journalstore.testing.TestDatabase;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
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
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample service on the embedded Postgres, from a database without the flows schema (the
 * starter migrates it): its health, a run started through its endpoint, and the drain at shutdown.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OrdersApplicationTest {
  private static final TestDatabase.Fresh DB = TestDatabase.empty("spring_app");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", DB::jdbcUrl);
  }

  @Value("${local.server.port}")
  int port;

  @Autowired Flows flows;

  @Autowired MeterRegistry meters;

  @Test
  void theHealthEndpointReportsTheFlowsComponentUp() throws Exception {
    HttpResponse<String> r = get("/actuator/health");

    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode component = JSON.readTree(r.body()).path("components").path("flows");
    assertThat(component.path("status").asText()).isEqualTo("UP");
    assertThat(component.path("details").path("database").asText()).isEqualTo("reachable");
    assertThat(component.path("details").path("schema").asText()).isEqualTo("current");
    assertThat(component.path("details").path("worker").asText()).isEqualTo("claiming");
  }

  @Test
  void aRunStartedThroughTheEndpointCompletesAndAnswersItsResult() throws Exception {
    HttpResponse<String> r =
        post("/orders", "{\"id\":\"o-1\",\"quantity\":3,\"unitCents\":250,\"packingMillis\":0}");

    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode packed = JSON.readTree(r.body());
    assertThat(packed.path("order").asText()).isEqualTo("o-1");
    assertThat(packed.path("totalCents").asLong()).isEqualTo(750);
    assertThat(packed.path("parcel").asText()).isEqualTo("parcel-o-1");
    assertThat(flows.runs().named("pack-order").state(RunState.SUCCEEDED).list(10))
        .anySatisfy(run -> assertThat(run.admissionKey()).endsWith("o-1"));
  }

  @Test
  void theWorkerCountersAreMicrometerMeters() throws Exception {
    post("/orders", "{\"id\":\"o-2\",\"quantity\":1,\"unitCents\":1,\"packingMillis\":0}");

    FunctionCounter completed =
        meters.get("flows.worker.attempts").tag("outcome", "completed").functionCounter();
    assertThat(completed.count()).isPositive();
    assertThat(meters.get("flows.worker.claiming").gauge().value()).isEqualTo(1.0);
    // The engine's own metrics, recorded into the application's registry.
    assertThat(meters.get("flows.runs.started").tag("flow", "pack-order").counter().count())
        .isPositive();
  }

  @Test
  void closingAnotherInstanceOfTheServiceDrainsTheRunItWasPacking() throws Exception {
    // The other instance alone serves this queue: this test's own worker, on the same database,
    // must not take the run instead of it.
    String queue = "packing-drain";
    ConfigurableApplicationContext other =
        new SpringApplicationBuilder(OrdersApplication.class)
            .properties(
                "spring.datasource.url=" + DB.jdbcUrl(),
                "server.port=0",
                "flows.worker.queues=" + queue,
                "flows.worker.stop-grace=30s")
            .run();
    // A key of its own per try: a rerun must not find the run of an earlier try.
    String id = "slow-" + UUID.randomUUID();
    Flows instance = other.getBean(Flows.class);
    RunHandle<PackOrder.Packed> started =
        instance.start(
            PackOrder.class,
            new PackOrder.Order(id, 2, 100, 1_500),
            StartOptions.key(id).queue(queue));
    // Its worker holds the run (a start its worker could not take at once is claimed soon after).
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (instance.workerCounts().claimed() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(instance.workerCounts().claimed()).as("the other instance claimed it").isOne();

    // The other instance's worker holds the run in its packing step when its context closes.
    other.close();

    // The drain let the step finish: the run ended before close returned, nothing handed over.
    RunInfo afterClose = flows.handle(started.runId()).snapshot();
    assertThat(afterClose.state()).as(afterClose.toString()).isEqualTo(RunState.SUCCEEDED);
    assertThat(flows.handle(started.runId(), PackOrder.Packed.class).result(Duration.ofSeconds(5)))
        .isEqualTo(new PackOrder.Packed(id, 200, "parcel-" + id));
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String json) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }
}
