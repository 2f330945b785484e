package dev.flows.embed;

import static dev.flows.embed.TestFlows.JSON;
import static dev.flows.embed.TestFlows.on;
import static dev.flows.embed.TestFlows.withWorker;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.kernel.lifecycle.StepStatus;
import dev.flows.sdk.Ctx;
import dev.flows.sdk.Flow;
import dev.flows.sdk.FlowHeader;
import dev.flows.sdk.RunId;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Flows#replayCheck} on Postgres: runs of an approval flow waiting on their signal, checked
 * against changed code before it is deployed. Nothing is written: every table keeps its rows.
 */
class ReplayCheckTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private TestDatabase.Fresh db;

  @BeforeEach
  void freshDatabase() {
    db = TestDatabase.fresh("replaycheck");
  }

  /** A step, then the wait for approval. */
  static final class Approval implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("approval").version("1").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      f.step("load", () -> input.path("n").asInt());
      f.awaitSignal("approve", Duration.ofHours(24));
      return JSON.textNode("approved");
    }
  }

  /** Version 2 inserts a check before the wait. */
  static final class ApprovalChecked implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("approval").version("2").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      f.step("load", () -> input.path("n").asInt());
      f.step("fraud-check", () -> true);
      f.awaitSignal("approve", Duration.ofHours(24));
      return JSON.textNode("approved");
    }
  }

  /** Version 2 with the check behind a patch. */
  static final class ApprovalPatched implements Flow<JsonNode, JsonNode> {
    @Override
    public FlowHeader header() {
      return FlowHeader.named("approval").version("2").build();
    }

    @Override
    public JsonNode run(Ctx f, JsonNode input) {
      f.step("load", () -> input.path("n").asInt());
      if (f.patched("fraud-check")) {
        f.step("fraud-check", () -> true);
      }
      f.awaitSignal("approve", Duration.ofHours(24));
      return JSON.textNode("approved");
    }
  }

  private Map<String, Long> rows() throws Exception {
    Map<String, Long> counts = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl());
        Statement s = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet r =
          s.executeQuery(
              "select table_name from information_schema.tables"
                  + " where table_schema = 'flows' and table_type = 'BASE TABLE'")) {
        while (r.next()) {
          tables.add(r.getString(1));
        }
      }
      for (String t : tables) {
        try (ResultSet r = s.executeQuery("select count(*) from flows." + t)) {
          r.next();
          counts.put(t, r.getLong(1));
        }
      }
    }
    return counts;
  }

  @Test
  void runsWaitingOnTheOldCodeDivergeWhereAStepIsInsertedAndAreCompatibleBehindAPatch()
      throws Exception {
    List<RunId> waiting = new ArrayList<>();
    try (Flows v1 = withWorker(on(db).register(new Approval())).build()) {
      for (int i = 0; i < 3; i++) {
        waiting.add(v1.start(Approval.class, TestFlows.json(Map.of("n", i))).runId());
      }
      long until = System.nanoTime() + WAIT.toNanos();
      for (RunId id : waiting) {
        while (v1.journal().run(Boundary.ref(id)).orElseThrow().steps().getFirst().status()
            != StepStatus.READY) {
          assertThat(System.nanoTime()).as("the body suspended on its wait").isLessThan(until);
          Thread.sleep(20);
        }
      }
    }
    Map<String, Long> before = rows();

    ReplayReport changed;
    ReplayReport patched;
    ReplayReport one;
    try (Flows checkChanged = on(db).register(new ApprovalChecked()).build();
        Flows checkPatched = on(db).register(new ApprovalPatched()).build()) {
      changed = checkChanged.replayCheck(ApprovalChecked.class, ReplayCheck.active());
      patched = checkPatched.replayCheck(ApprovalPatched.class, ReplayCheck.all());
      one = checkChanged.replayCheck(ApprovalChecked.class, ReplayCheck.runs(waiting.get(1)));
    }

    assertThat(changed.compatible()).isFalse();
    assertThat(changed.runs()).extracting(ReplayReport.Run::runId).isEqualTo(waiting);
    assertThat(changed.runs())
        .allSatisfy(
            r -> {
              assertThat(r.position()).isEqualTo(OptionalInt.of(2));
              assertThat(r.verdict())
                  .isEqualTo(
                      "diverges at position 2: journal has f.awaitSignal(\"approve\"), code makes"
                          + " f.step(\"fraud-check\")");
            });
    assertThat(changed.summary()).isEqualTo("3 runs of flow approval: 0 compatible, 3 diverge");
    assertThat(patched.compatible()).isTrue();
    assertThat(patched.summary()).isEqualTo("3 runs of flow approval: 3 compatible, 0 diverge");
    assertThat(one.runs()).extracting(ReplayReport.Run::runId).containsExactly(waiting.get(1));
    assertThat(rows()).as("nothing was written").isEqualTo(before);
  }
}
