package dev.flows.embed;

import static dev.flows.embed.TestFlows.on;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.ErrorCode;
import dev.flows.kernel.journal.CompletionReason;
import dev.flows.kernel.journal.Disposition;
import dev.flows.kernel.journal.JournalEntry;
import dev.flows.kernel.journal.JournalRecord;
import dev.flows.kernel.journal.RunSnapshot;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.mcp.testkit.Jvm;
import dev.flows.sdk.FlowsError;
import dev.flows.sdk.runtime.PreflightException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Building a {@link Flows} (schema, servers, refusals) and closing it (the drain). */
class FlowsLifecycleTest {
  private static final Duration STOP_GRACE = Duration.ofMillis(300);

  @Test
  void aSchemaBehindThisBuildIsRefusedMigrationPendingUnlessBuildIsAskedToMigrate() {
    TestDatabase.Fresh db = TestDatabase.empty("embed_migrate");

    assertThatThrownBy(() -> on(db).build())
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.MIGRATION_PENDING.wire());
              assertThat(e.fix()).hasValueSatisfying(f -> assertThat(f).contains("migrate(true)"));
            });
    on(db).migrate(true).build().close();
    // Migrated now: a later build needs no permission to migrate.
    on(db).build().close();
  }

  @Test
  void anUnreachableDatabaseIsRefusedDatabaseUnavailable() throws Exception {
    int closedPort;
    try (var s = new java.net.ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    assertThatThrownBy(
            () ->
                Flows.builder()
                    .jdbcUrl("jdbc:postgresql://127.0.0.1:" + closedPort + "/none")
                    .poolSize(1)
                    .build())
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.DATABASE_UNAVAILABLE.wire()));
  }

  @Test
  void aFlowDeclaringAServerNoOneGaveIsRefusedAtBuildWithoutTouchingTheDatabase() {
    // No database could be reached at this URL: the refusal comes first.
    assertThatThrownBy(
            () ->
                Flows.builder()
                    .jdbcUrl("jdbc:postgresql://127.0.0.1:1/none")
                    .register(new TestFlows.Fragile())
                    .register(new TestFlows.Grower())
                    .build())
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.MCP_UNDECLARED_SERVER.wire());
              assertThat(e.getMessage()).startsWith("2 problems; first: ");
              assertThat(e.getCause()).isInstanceOf(PreflightException.class);
            });
  }

  @Test
  void serversComeFromCodeAndFromAFlowsJsonOnlyWhenOneIsNamed(@TempDir Path dir) throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("embed_servers");
    var server = Jvm.stdioServer("fragile", List.of(), Map.of());
    Files.writeString(
        dir.resolve("flows.json"),
        "{\"mcp\": {\"fragile\": {\"command\": \"" + server.command() + "\", \"args\": []}}}");
    Path below = Files.createDirectories(dir.resolve("a/b"));

    on(db).register(new TestFlows.Fragile()).flowsJson(below).build().close();
    assertThatThrownBy(
            () ->
                on(db)
                    .register(new TestFlows.Fragile())
                    .flowsJson(dir.resolve("flows.json"))
                    .mcpServer(McpServer.of(server))
                    .build())
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire()));
  }

  @Test
  void twoDatabasesOrTwoFlowsOfOneNameAreRefusedConfigInvalid() {
    assertThatThrownBy(() -> Flows.builder().jdbcUrl("jdbc:postgresql://h/d").jdbcUrl("x"))
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire()));
    assertThatThrownBy(
            () ->
                Flows.builder()
                    .jdbcUrl("jdbc:postgresql://127.0.0.1:1/none")
                    .register(new TestFlows.Shout())
                    .register(new TestFlows.Shout())
                    .build())
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire()));
    assertThatThrownBy(() -> Flows.builder().build())
        .isInstanceOfSatisfying(
            FlowsError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFIG_INVALID.wire()));
  }

  @Test
  void closingDrainsTheWorkerHandsTheAttemptBackLeavesNoLeaseAndKeepsTheCallersPool()
      throws Exception {
    TestDatabase.Fresh db = TestDatabase.fresh("embed_drain");
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(db.jdbcUrl());
    hc.setMaximumPoolSize(12);
    TestFlows.Blocker.hold = true;
    TestFlows.Blocker.started = new CountDownLatch(1);
    try (HikariDataSource pool = new HikariDataSource(hc)) {
      Flows flows =
          Flows.builder()
              .dataSource(pool)
              .register(new TestFlows.Blocker())
              .worker(w -> w.capacity(2).pollInterval(Duration.ofMillis(50)).stopGrace(STOP_GRACE))
              .build();
      RunHandle<JsonNode> h =
          flows.start(TestFlows.Blocker.class, TestFlows.json(Map.of()), StartOptions.key("drain"));
      assertThat(TestFlows.Blocker.started.await(60, TimeUnit.SECONDS)).isTrue();

      flows.close();

      assertThat(pool.isClosed()).isFalse();
      try (Flows reader = Flows.builder().dataSource(pool).build()) {
        RunSnapshot run = reader.journal().run(Boundary.ref(h.runId())).orElseThrow();
        assertThat(run.steps().getFirst().status()).isEqualTo(StepStatus.READY);
        List<JournalEntry> entries =
            reader.journal().entries(Boundary.ref(h.runId())).stream()
                .map(JournalRecord::entry)
                .toList();
        // Every attempt that started was completed: no lease is left to expire.
        assertThat(entries.stream().filter(e -> e instanceof JournalEntry.StepAttemptStarted))
            .hasSize(1);
        JournalEntry.StepCompleted handedBack =
            entries.stream()
                .filter(e -> e instanceof JournalEntry.StepCompleted)
                .map(e -> (JournalEntry.StepCompleted) e)
                .reduce((a, b) -> b)
                .orElseThrow();
        assertThat(handedBack.reason()).isEqualTo(CompletionReason.WORKER_ERROR);
        assertThat(handedBack.disposition()).isEqualTo(Disposition.RETRY);
        assertThat(handedBack.trajectoryTail().orElseThrow().path("cause").asText())
            .isEqualTo("worker_shutdown");
      }
      // Another instance's worker takes the run up and finishes it.
      TestFlows.Blocker.hold = false;
      try (Flows next =
          TestFlows.withWorker(Flows.builder().dataSource(pool))
              .register(new TestFlows.Blocker())
              .build()) {
        JsonNode out = next.handle(h.runId()).result(Duration.ofSeconds(60));
        assertThat(out.path("done").asBoolean()).isTrue();
      }
    }
  }
}
