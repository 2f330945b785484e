package dev.flows.embed;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The example of README's "Embed flows in a service", compiled and run by {@link
 * ReadmeExampleTest}; the text between the markers is the README's snippet, character for character
 * (without this file's indentation).
 */
final class EmbedExample {
  private EmbedExample() {}

  static String triage(DataSource ds, McpServer tickets, JsonNode input)
      throws InterruptedException {
    // README:begin
    try (Flows flows =
        Flows.builder()
            .dataSource(ds) // or .jdbcUrl(url), or .jdbcUrl(url, user, password)
            .register(new Triage()) // this very instance runs the flow
            .mcpServer(tickets) // servers in code; flows.json is optional
            .worker(w -> w.capacity(16)) // without a worker: start and wait only
            .migrate(true) // else a schema behind this build is refused migration_pending
            .build()) {
      RunHandle<JsonNode> h = flows.start(Triage.class, input, StartOptions.key("order-42"));
      try {
        JsonNode out = h.result(Duration.ofMinutes(5));
        return "category " + out.path("category").asText();
      } catch (RunFailedException e) { // e.code(): the diagnostic; e.diagnostic(): its details
        return "failed " + e.code();
      } catch (RunParkedException e) { // an operator decides: e.parkedRun(), e.stepId()
        return "parked at " + e.parkedRun();
      } catch (RunCanceledException | ResultTimeoutException e) {
        return e.code();
      }
    } // close() drains the worker as SIGTERM does, and closes what build() opened
    // README:end
  }
}
