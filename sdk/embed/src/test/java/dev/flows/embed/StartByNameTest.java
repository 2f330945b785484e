package dev.flows.embed;

import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.FlowsError;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A service starts runs of a flow by name that another instance on the same database hosts: the run
 * is routed as the hosting worker's runs of that flow are (a class flow by name and version), and
 * only what cannot be routed is refused.
 */
class StartByNameTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private TestDatabase.Fresh db;

  @BeforeEach
  void freshDatabase() {
    db = TestDatabase.fresh("by_name");
  }

  private static Flows host(TestDatabase.Fresh db) {
    return withWorker(on(db).register(new TestFlows.TypedShout())).build();
  }

  @Test
  void aServiceStartsByNameARunOfAFlowOnlyAnotherInstanceHostsAndReadsItsResult() throws Exception {
    try (Flows host = host(db);
        Flows starter = on(db).build()) {
      host.start(TestFlows.TypedShout.class, new TestFlows.Words("first")).result(WAIT);

      RunHandle<JsonNode> h =
          starter.start("typed-shout", Map.of("text", "hi"), StartOptions.key("k-1"));

      assertThat(h.created()).isTrue();
      assertThat(h.result(WAIT).path("text").asText()).isEqualTo("HI");
      assertThat(h.snapshot().admissionKey()).isEqualTo("flow:typed-shout:k-1");
      RunHandle<JsonNode> again =
          starter.start("typed-shout", Map.of("text", "hi"), StartOptions.key("k-1"));
      assertThat(again.runId()).isEqualTo(h.runId());
      assertThat(again.created()).isFalse();
    }
  }

  @Test
  void aStartNamingTheVersionTheHostRunsIsRoutedAndAnotherVersionIsRefusedFlowNotFound()
      throws Exception {
    String version = new TestFlows.TypedShout().header().version();
    try (Flows host = host(db);
        Flows starter = on(db).build()) {
      host.start(TestFlows.TypedShout.class, new TestFlows.Words("first")).result(WAIT);

      assertThat(
              starter
                  .start("typed-shout", Map.of("text", "v"), StartOptions.none().version(version))
                  .result(WAIT)
                  .path("text")
                  .asText())
          .isEqualTo("V");
      FlowsError e =
          catchThrowableOfType(
              FlowsError.class,
              () ->
                  starter.start(
                      "typed-shout", Map.of("text", "v"), StartOptions.none().version("99")));
      assertThat(e.code()).isEqualTo("flow_not_found");
      assertThat(e.getMessage()).doesNotContain("\n").contains("typed-shout@99");
    }
  }

  @Test
  void aFlowNoInstanceEverRanCannotBeRoutedAndIsRefusedFlowNotFound() {
    try (Flows starter = on(db).build()) {
      FlowsError e =
          catchThrowableOfType(
              FlowsError.class,
              () -> starter.start("typed-shout", Map.of("text", "x"), StartOptions.none()));
      assertThat(e.code()).isEqualTo("flow_not_found");
      assertThat(e.oneLine()).doesNotContain("\n");
      assertThat(e.fix()).isPresent();
    }
  }
}
