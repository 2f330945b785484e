package dev.flows.journalstore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flows.kernel.journal.Admit;
import dev.flows.kernel.journal.ClaimRequest;
import dev.flows.kernel.journal.RunRef;
import dev.flows.kernel.journal.StartRun;
import dev.flows.kernel.journal.WorkerId;
import dev.flows.kernel.spec.StepKind;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** flows.runs_overview shows a run's queue and, while a note is current, why it waits. */
class QueueViewsTest {
  private static final String REASON = "no worker accepts this flow source";
  private static PostgresFixture pg;

  @BeforeAll
  static void open() {
    pg = PostgresFixture.create("queue_views");
  }

  @AfterAll
  static void close() {
    pg.close();
  }

  private static ClaimRequest worker(Set<String> routes, String queue) {
    return new ClaimRequest(
        new WorkerId("w-queue-views"),
        Set.of(StepKind.AGENT),
        10,
        Duration.ofMinutes(1),
        Optional.of(routes),
        Set.of(),
        Optional.of(Set.of(queue)));
  }

  @Test
  void theOverviewShowsEachRunsQueueAChildInheritsItAndTheWaitingReasonClearsOnClaim()
      throws SQLException {
    RunRef root =
        pg.journal()
            .admit(
                StartRun.of("k-root", Specs.run("refund", Specs.agent("a", 3, "/x")))
                    .inQueue("payments"),
                Admit.queued())
            .runId();
    RunRef child = new RunRef("child_of_refund");
    pg.journal()
        .admit(
            new StartRun(
                Optional.of(child),
                "k-child",
                Specs.run("refund:run", Specs.agent("c", 1, "/x")),
                Optional.of(root),
                "test"),
            Admit.queued());
    assertThat(row(root)).containsExactly("payments", null);
    assertThat(row(child)).as("the child is in its root's queue").containsExactly("payments", null);

    // The agent steps' route is "mcp.call" (Specs.agent): a worker serving other routes notes them.
    ClaimRequest refusing = worker(Set.of("other"), "payments");
    assertThat(pg.journal().noteUnaccepted(refusing, "mcp", REASON)).isEqualTo(2);
    assertThat(row(root)).containsExactly("payments", REASON);
    assertThat(pg.journal().run(root).orElseThrow().waitingReason()).contains(REASON);
    assertThat(pg.journal().run(root).orElseThrow().queue()).isEqualTo("payments");
    assertThat(pg.journal().noteUnaccepted(refusing, "mcp", REASON)).isZero();

    assertThat(pg.journal().claim(worker(Set.of("mcp.call"), "default")))
        .as("a worker of another queue claims none of them")
        .isEmpty();
    assertThat(pg.journal().claim(worker(Set.of("mcp.call"), "payments"))).hasSize(2);
    assertThat(row(root)).as("the claim made the note stale").containsExactly("payments", null);
    assertThat(pg.journal().run(root).orElseThrow().waitingReason()).isEmpty();
  }

  private static List<String> row(RunRef run) throws SQLException {
    try (Connection c = DriverManager.getConnection(pg.db().jdbcUrl());
        var ps =
            c.prepareStatement(
                "SELECT queue, waiting_reason FROM flows.runs_overview WHERE run_id = ?")) {
      ps.setString(1, run.value());
      try (var rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        List<String> out = new ArrayList<>();
        out.add(rs.getString(1));
        out.add(rs.getString(2));
        return out;
      }
    }
  }
}
