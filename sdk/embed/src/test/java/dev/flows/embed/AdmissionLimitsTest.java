package dev.flows.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flows.journalstore.testing.TestDatabase;
import dev.flows.sdk.FlowsError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's limits of a {@link Flows} without a worker (admission only): {@code
 * .payloadLimits(...)} or flows.json's {@code limits} hold for its starts and signals, a payload
 * under the default but past the bound refused {@code payload_too_large} with nothing written.
 */
class AdmissionLimitsTest {
  private static final long BOUND = 8192;

  private TestDatabase.Fresh db;
  @TempDir Path dir;

  @BeforeEach
  void database() {
    db = TestDatabase.fresh("embed_admission_limits");
  }

  private final JsonNode big = TestFlows.json(Map.of("text", "x".repeat((int) BOUND)));

  @Test
  void anAdmissionOnlyFlowsWithALoweredBoundRefusesABiggerStartAndSignalWithNothingWritten()
      throws Exception {
    try (Flows flows =
        TestFlows.on(db)
            .register(new TestFlows.Shout())
            .payloadLimits(l -> l.maxRunInputBytes(BOUND).maxSignalBytes(BOUND))
            .build()) {
      refusesABiggerStartAndSignal(flows, "maxRunInputBytes (" + BOUND + " bytes)");
    }
  }

  @Test
  void flowsJsonLimitsHoldForAnAdmissionOnlyFlowsAndCodeWinsOverTheFile() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("flows.json"),
            "{\"limits\": {\"maxRunInputBytes\": "
                + BOUND
                + ", \"maxSignalBytes\": "
                + BOUND
                + "}}");
    try (Flows flows = TestFlows.on(db).register(new TestFlows.Shout()).flowsJson(file).build()) {
      refusesABiggerStartAndSignal(flows, "maxRunInputBytes (" + BOUND + " bytes)");
    }
    try (Flows flows =
        TestFlows.on(db)
            .register(new TestFlows.Shout())
            .flowsJson(file)
            .payloadLimits(l -> l.maxRunInputBytes(4 * BOUND))
            .build()) {
      RunHandle<JsonNode> run = flows.start(TestFlows.Shout.class, big);
      assertThat(run.created()).isTrue();
      assertThatThrownBy(() -> run.signal("go", big))
          .isInstanceOfSatisfying(
              FlowsError.class,
              e -> assertThat(e.getMessage()).contains("maxSignalBytes (" + BOUND + " bytes)"));
    }
  }

  @Test
  void journalLimitsGivenBothToTheBuilderAndToTheWorkerAreRefusedConfigInvalid() {
    assertThatThrownBy(
            () ->
                TestFlows.on(db)
                    .register(new TestFlows.Shout())
                    .payloadLimits(l -> l.maxSignalBytes(BOUND))
                    .worker(w -> w.maxRunInputBytes(BOUND))
                    .build())
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo("config_invalid");
              assertThat(e.getMessage()).contains("given twice");
            });
    assertThatThrownBy(() -> TestFlows.on(db).payloadLimits(l -> l.maxRunInputBytes(4095)))
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo("config_invalid");
              assertThat(e.getMessage()).contains("maxRunInputBytes");
            });
  }

  private void refusesABiggerStartAndSignal(Flows flows, String named) throws Exception {
    int runs = count("flows.runs");
    assertThatThrownBy(() -> flows.start(TestFlows.Shout.class, big))
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo("payload_too_large");
              assertThat(e.getMessage()).contains(named);
            });
    assertThat(count("flows.runs")).isEqualTo(runs);

    RunHandle<JsonNode> small =
        flows.start(TestFlows.Shout.class, TestFlows.json(Map.of("text", "hi")));
    int signals = count("flows.signal_mailbox");
    assertThatThrownBy(() -> small.signal("go", big))
        .isInstanceOfSatisfying(
            FlowsError.class,
            e -> {
              assertThat(e.code()).isEqualTo("payload_too_large");
              assertThat(e.getMessage()).contains("maxSignalBytes (" + BOUND + " bytes)");
            });
    assertThat(count("flows.signal_mailbox")).isEqualTo(signals);
    small.signal("go", TestFlows.json(Map.of("ok", true)));
    assertThat(count("flows.signal_mailbox")).isEqualTo(signals + 1);
  }

  private int count(String table) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        ResultSet r = c.createStatement().executeQuery("SELECT count(*) FROM " + table)) {
      r.next();
      return r.getInt(1);
    }
  }
}
