package dev.flows.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.flows.journalstore.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flows run} exports its in-process worker's spans when {@code OTEL_*} asks for it. */
class RunTelemetryTest {
  @TempDir Path dir;

  @Test
  void aRunExportsItsSpansToTheOtlpEndpointTheEnvironmentNames() throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("run_otel");
    Path flow = FlowCommandsTest.greetWithTools(dir);
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    HttpServer collector =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    collector.createContext(
        "/v1/traces",
        x -> {
          try (x;
              InputStream in = x.getRequestBody()) {
            byte[] body = in.readAllBytes();
            synchronized (received) {
              received.write(body);
            }
            x.sendResponseHeaders(200, -1);
          }
        });
    collector.start();
    try {
      Cli cli =
          new Cli(
              Map.of(
                  "FLOWS_HOME",
                  dir.resolve("home").toString(),
                  "OTEL_EXPORTER_OTLP_ENDPOINT",
                  "http://127.0.0.1:" + collector.getAddress().getPort(),
                  "OTEL_EXPORTER_OTLP_PROTOCOL",
                  "http/protobuf",
                  "OTEL_METRICS_EXPORTER",
                  "none"));

      Cli.Result r = cli.run("--db", db.jdbcUrl(), "--json", "run", flow.toString());

      assertThat(r.exit()).as(r.err()).isZero();
      String run = r.jsonLines().getFirst().path("run").asText();
      assertThat(received(received)).as("spans the collector received").contains(run);
    } finally {
      collector.stop(0);
    }
  }

  private static String received(ByteArrayOutputStream received) throws IOException {
    synchronized (received) {
      return received.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
